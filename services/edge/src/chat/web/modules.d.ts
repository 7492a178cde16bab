// The installed marked-katex-extension ships no type declarations; this is the part the page uses.
declare module 'marked-katex-extension' {
  import type { MarkedExtension } from 'marked';
  export default function markedKatex(options?: Record<string, unknown>): MarkedExtension;
}
