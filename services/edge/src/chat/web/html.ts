/** JSX-like tagged templates for preact, without a compile step. */
export { html } from 'htm/preact';
