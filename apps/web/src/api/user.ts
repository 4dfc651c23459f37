import { api, type BodyOf } from '@ksp/contracts';
import { call } from './client';
import { encodeLogin } from './login-encoding';
import { saveSignedIn, saveUserInfo, setToken, type SignedIn } from './session';

export const userKeys = {
  info: ['user', 'info'] as const,
  passwordRules: ['user', 'password-rules'] as const,
};

/**
 * Logs in and stores the session. Silent: the login form shows failures itself
 * (4001 "Incorrect username or password", 4503 "Please log in with Ukey").
 */
export async function signIn(username: string, password: string): Promise<SignedIn> {
  const body = await encodeLogin(username, password);
  const data = await call(api.user.login, { body }, { silent: true });
  saveSignedIn(data);
  return data;
}

/** Loads the user info and menu of the stored token and stores them. */
export async function loadUserInfo(): Promise<void> {
  const data = await call(api.user.info);
  saveUserInfo(data);
}

export function logout(): Promise<null> {
  return call(api.user.logout, { body: {} }, { silent: true });
}

/** Rejected with no message of its own (spec §8); the caller reports it. */
export async function switchDomain(domainName: string): Promise<SignedIn> {
  const data = await call(api.user.switchDomain, { body: { domain_name: domainName } }, { silent: true });
  saveSignedIn(data);
  return data;
}

export function updateEmail(email: string) {
  return call(api.user.updateEmail, { body: { email } });
}

/** The server revokes the old token and answers a new one, stored here. */
export async function updateMyPassword(body: BodyOf<typeof api.user.updateMyPassword>): Promise<void> {
  const { token } = await call(api.user.updateMyPassword, { body });
  setToken(token);
}

export function fetchPasswordRules() {
  return call(api.user.passwordRules);
}
