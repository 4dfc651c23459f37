import { createHash } from 'node:crypto';
import { apiCall } from './server.js';
import { api, type CallDef } from '@ksp/contracts';

export const ADMIN = { username: 'admin', password: 'Admin-Pass-1', email: 'admin@example.test' };

/** First run through the public API, for tests that are not about it. */
export async function initializeByApi(base: string): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const c = await apiCall(base, api.system.initComponent, {});
    if (c.code !== 0) throw new Error(c.msg);
  }
  const fin = await apiCall(base, api.system.initFinish, {});
  if (fin.code !== 0) throw new Error(fin.msg);
  const act = await apiCall(base, api.system.activate, ADMIN);
  if (act.code !== 0) throw new Error(act.msg);
}

export async function loginByApi(
  base: string,
  username = ADMIN.username,
  password = ADMIN.password,
): Promise<string> {
  const res = await apiCall<{ token: string }>(base, api.user.login, {
    username: Buffer.from(username).toString('base64'),
    password: createHash('sha256').update(password).digest('base64'),
  });
  if (res.code !== 0) throw new Error(`login: ${res.msg}`);
  return res.data.token;
}

/** The id of the first entry of a paged list call (roles, domains) whose name is `name` or passes it. */
export async function idByName(
  base: string,
  token: string,
  list: Pick<CallDef, 'method' | 'path'>,
  name: string | ((name: string) => boolean),
): Promise<string> {
  const res = await apiCall<{ data: { id: string; name: string }[] }>(base, list, undefined, token, {
    page: 1,
    page_size: 50,
  });
  const wanted = typeof name === 'string' ? (entry: string) => entry === name : name;
  const found = res.data.data.find((entry) => wanted(entry.name));
  if (!found) throw new Error(`${list.path}: no entry named ${String(name)}`);
  return found.id;
}

/** A further account, made by the administrator, that signs in without being asked to change its password. */
export async function createUserByApi(
  base: string,
  token: string,
  user: { username: string; password: string; email: string; role_ids: string[]; domain_ids?: string[] },
): Promise<void> {
  const created = await apiCall(base, api.user.create, { ...user, must_change_password: false }, token);
  if (created.code !== 0) throw new Error(`create user ${user.username}: ${created.msg}`);
}
