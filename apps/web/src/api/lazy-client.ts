import type { CallDef, DataOf, api } from '@ksp/contracts';
import type { CallInput, CallOptions, upload as clientUpload } from './client';

type Contract = typeof api;

// The HTTP client (axios) and the contract (every call's zod schemas) weigh more than the
// login form itself; the modules the shell and the public pages use load them with their first
// call instead of before the form can take input (docs/performance.md, the console).
const loadClient = () => Promise.all([import('./client'), import('./contract')]);

/** `call` of `client.ts`, the call picked from the contract once both are loaded. */
export async function lazyCall<C extends CallDef>(
  pick: (contract: Contract) => C,
  input?: CallInput<C>,
  options?: CallOptions,
): Promise<DataOf<C>> {
  const [{ call }, { api: contract }] = await loadClient();
  return call(pick(contract), input, options);
}

/** `upload` of `client.ts`, likewise. */
export async function lazyUpload<C extends CallDef>(
  pick: (contract: Contract) => C,
  file: Blob,
  options?: Parameters<typeof clientUpload>[2],
): Promise<DataOf<C>> {
  const [{ upload }, { api: contract }] = await loadClient();
  return upload(pick(contract), file, options);
}
