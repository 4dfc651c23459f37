import { createHash } from 'node:crypto';
import { apiCall } from './server.js';
import { api } from '@ksp/contracts';

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
