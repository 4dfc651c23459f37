import type { api, BodyOf } from '@ksp/contracts';
import { lazyCall } from './lazy-client';
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
  // With the client: the encoding reads a rule of the contract's text module, which needs zod.
  const { encodeLogin } = await import('./login-encoding');
  const body = await encodeLogin(username, password);
  const data = await lazyCall((contract) => contract.user.login, { body }, { silent: true });
  saveSignedIn(data);
  return data;
}

/** Loads the user info and menu of the stored token and stores them. */
export async function loadUserInfo(): Promise<void> {
  const data = await lazyCall((contract) => contract.user.info);
  saveUserInfo(data);
}

export function logout(): Promise<null> {
  return lazyCall((contract) => contract.user.logout, { body: {} }, { silent: true });
}

/** Rejected with no message of its own (docs/console.md#errors); the caller reports it. */
export async function switchDomain(domainName: string): Promise<SignedIn> {
  const data = await lazyCall(
    (contract) => contract.user.switchDomain,
    { body: { domain_name: domainName } },
    { silent: true },
  );
  saveSignedIn(data);
  return data;
}

export function updateEmail(email: string) {
  return lazyCall((contract) => contract.user.updateEmail, { body: { email } });
}

/** The server revokes the old token and answers a new one, stored here. */
export async function updateMyPassword(body: BodyOf<typeof api.user.updateMyPassword>): Promise<void> {
  const { token } = await lazyCall((contract) => contract.user.updateMyPassword, { body });
  setToken(token);
}

export function fetchPasswordRules() {
  return lazyCall((contract) => contract.user.passwordRules);
}
