import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const serverKeys = {
  all: ['ssh-server'] as const,
  list: ['ssh-server', 'list'] as const,
  detail: (id: string) => ['ssh-server', 'detail', id] as const,
  rotations: (id: string) => ['ssh-server', 'rotations', id] as const,
  sessions: (id: string) => ['ssh-server', 'sessions', id] as const,
  roleOptions: ['ssh-server', 'role-options'] as const,
};

/** Roles `terminal_roles` may hold, by name (`ids`: only these, comma separated). */
export function listRoleOptions(query: QueryOf<typeof api.sshServer.roleOptions>) {
  return call(api.sshServer.roleOptions, { query });
}

export function listServers(query: QueryOf<typeof api.sshServer.list>) {
  return call(api.sshServer.list, { query });
}

export function fetchServer(id: string) {
  return call(api.sshServer.detail, { query: { id } });
}

/** The forms and the detail page show the server's refusal themselves, hence `silent`. */
export function createServer(body: BodyOf<typeof api.sshServer.create>) {
  return call(api.sshServer.create, { body }, { silent: true });
}

export function updateServer(body: BodyOf<typeof api.sshServer.update>) {
  return call(api.sshServer.update, { body }, { silent: true });
}

export function deleteServers(ids: string[]) {
  return call(api.sshServer.delete, { body: { ids } });
}

export function fetchFingerprint(body: BodyOf<typeof api.sshServer.fetchFingerprint>) {
  return call(api.sshServer.fetchFingerprint, { body }, { silent: true });
}

export function confirmFingerprint(id: string, fingerprint: string) {
  return call(api.sshServer.confirmFingerprint, { body: { id, fingerprint } }, { silent: true });
}

export function testServer(id: string) {
  return call(api.sshServer.test, { body: { id } }, { silent: true });
}

export function rotateServer(id: string) {
  return call(api.sshServer.rotate, { body: { id } }, { silent: true });
}

export function listRotations(query: QueryOf<typeof api.sshServer.rotations>) {
  return call(api.sshServer.rotations, { query });
}

/** A single-use terminal ticket; the terminal page shows a refusal itself, hence `silent`. */
export function terminalTicket(id: string) {
  return call(api.sshServer.terminalTicket, { body: { id } }, { silent: true });
}

export function listSessions(query: QueryOf<typeof api.sshServer.sessions>) {
  return call(api.sshServer.sessions, { query });
}

/** A session's asciicast v2 recording (each replay is audited). */
export function fetchRecording(id: string) {
  return call(api.sshServer.recording, { query: { id } });
}
