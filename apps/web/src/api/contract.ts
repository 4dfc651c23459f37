// The contract's calls for `lazy-client.ts` to load: a module of its own, so that the chunk it
// makes holds the calls and their schemas and nothing the login form needs.
export { api } from '@ksp/contracts';
