/** JSX-like tagged templates for preact, without a compile step (the chat page's stack). */
export { html } from 'htm/preact';
