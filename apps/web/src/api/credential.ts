import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const credentialKeys = {
  all: ['credential'] as const,
  list: ['credential', 'list'] as const,
  detail: (id: string) => ['credential', 'detail', id] as const,
};

export function listCredentials(query: QueryOf<typeof api.credential.list>) {
  return call(api.credential.list, { query });
}

export function fetchCredential(id: string) {
  return call(api.credential.detail, { query: { id } });
}

/** The form shows the server's refusal itself (it names the field), hence `silent`. */
export function createCredential(body: BodyOf<typeof api.credential.create>) {
  return call(api.credential.create, { body }, { silent: true });
}

export function updateCredential(body: BodyOf<typeof api.credential.update>) {
  return call(api.credential.update, { body });
}

export function addCredentialVersion(id: string, value: string) {
  return call(api.credential.addVersion, { body: { id, value } }, { silent: true });
}

export function deleteCredentials(ids: string[]) {
  return call(api.credential.delete, { body: { ids } });
}

export function generatePassword(body: BodyOf<typeof api.credential.generatePassword>) {
  return call(api.credential.generatePassword, { body });
}

/** The reveal dialog shows a wrong password itself, hence `silent`. */
export function revealCredential(id: string, version: number, password: string) {
  return call(api.credential.reveal, { body: { id, version, password } }, { silent: true });
}
