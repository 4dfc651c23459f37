import { api, type ukeyAlgorithms } from '@ksp/contracts';
import { ApiError } from './api-error';
import { call } from './client';
import { saveSignedIn, type SignedIn } from './session';

/** Where the local UKEY bridge listens unless the configuration entry UKEY_BRIDGE says otherwise. */
import { DEFAULT_UKEY_BRIDGE } from '@ksp/contracts';

export { DEFAULT_UKEY_BRIDGE };
export const UKEY_BRIDGE_KEY = 'UKEY_BRIDGE';
export type UkeyAlgorithm = (typeof ukeyAlgorithms)[number];
export const UKEY_PIN_MIN = 6;
const BRIDGE_TIMEOUT_MS = 20_000;

/** The bridge address from the site configuration, without a trailing slash. */
export function bridgeAddress(config: Partial<Record<string, string>> | undefined): string {
  const configured = config?.[UKEY_BRIDGE_KEY]?.trim();
  return (configured || DEFAULT_UKEY_BRIDGE).replace(/\/+$/, '');
}

/**
 * A failed bridge call: `unreachable` when nothing answered (bridge not running, wrong
 * address, refused by the browser), otherwise the bridge's own `error` text.
 */
export class BridgeError extends Error {
  readonly unreachable: boolean;
  constructor(message: string, unreachable: boolean) {
    super(message);
    this.name = 'BridgeError';
    this.unreachable = unreachable;
  }
}

async function bridgeFetch<T>(base: string, path: string, init: RequestInit = {}): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), BRIDGE_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, { ...init, signal: controller.signal, cache: 'no-store' });
  } catch {
    throw new BridgeError('', true);
  } finally {
    clearTimeout(timer);
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: reported below with the status.
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (!response.ok || typeof record.error === 'string') {
    const text = typeof record.error === 'string' ? record.error : `HTTP ${response.status}`;
    throw new BridgeError(text, false);
  }
  return body as T;
}

const postJson = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export interface BridgeCertificate {
  serial: string;
  certificate: string;
}

/** The certificate (PEM) and serial of the UKEY plugged in. */
export async function readBridgeCertificate(base: string): Promise<BridgeCertificate> {
  const data = await bridgeFetch<Partial<BridgeCertificate>>(base, '/certificate');
  if (typeof data.serial !== 'string' || typeof data.certificate !== 'string') {
    throw new BridgeError('The bridge answered no certificate', false);
  }
  return { serial: data.serial, certificate: data.certificate };
}

export interface BridgeSignature {
  signature: string;
  certificate: string;
  serial: string;
}

/** The UKEY signs `data` (the server's challenge) after a login with `pin`. */
export async function bridgeSign(base: string, pin: string, data: string): Promise<BridgeSignature> {
  const answer = await bridgeFetch<Partial<BridgeSignature>>(base, '/sign', postJson({ pin, data }));
  if (typeof answer.signature !== 'string') throw new BridgeError('The bridge answered no signature', false);
  return {
    signature: answer.signature,
    certificate: answer.certificate ?? '',
    serial: answer.serial ?? '',
  };
}

/** A token the bridge sees (a UKEY plugged in). */
export interface BridgeToken {
  serial: string;
  label: string;
}

/** The tokens plugged in (`GET /status`). */
export async function bridgeStatus(base: string): Promise<BridgeToken[]> {
  const data = await bridgeFetch<{ tokens?: unknown }>(base, '/status');
  if (!Array.isArray(data.tokens)) throw new BridgeError('The bridge answered no token list', false);
  return data.tokens.flatMap((token: unknown) => {
    const record = typeof token === 'object' && token !== null ? (token as Record<string, unknown>) : {};
    return typeof record.serial === 'string'
      ? [{ serial: record.serial, label: typeof record.label === 'string' ? record.label : '' }]
      : [];
  });
}

export interface BridgeKeygenBody {
  pin: string;
  serial: string;
  algorithm: UkeyAlgorithm;
  /** The subject's common name of the request (the user's name). */
  common_name: string;
}

export interface BridgeKeygen {
  serial: string;
  key_id: string;
  /** PEM PKCS#10 signed by the new key. */
  csr: string;
}

/** The UKEY makes a signing key pair and a certificate request for it (`POST /keygen`). */
export async function bridgeKeygen(base: string, body: BridgeKeygenBody): Promise<BridgeKeygen> {
  const answer = await bridgeFetch<Partial<BridgeKeygen>>(base, '/keygen', postJson(body));
  if (typeof answer.csr !== 'string' || typeof answer.key_id !== 'string') {
    throw new BridgeError('The bridge answered no certificate request', false);
  }
  return { serial: answer.serial ?? body.serial, key_id: answer.key_id, csr: answer.csr };
}

export interface BridgeInstallBody {
  pin: string;
  serial: string;
  key_id: string;
  /** The signing certificate (PEM). */
  certificate: string;
  /** Dual only: the encryption certificate (PEM) and its key (Base64 GM/T 0009 SM2EnvelopedKey). */
  encryption_certificate?: string;
  enveloped_key?: string;
}

/** The UKEY stores its certificate(s), and for dual the encryption key (`POST /install`). */
export async function bridgeInstall(
  base: string,
  body: BridgeInstallBody,
): Promise<{ serial: string; installed: string[] }> {
  const answer = await bridgeFetch<{ serial?: unknown; installed?: unknown }>(
    base,
    '/install',
    postJson(body),
  );
  return {
    serial: typeof answer.serial === 'string' ? answer.serial : body.serial,
    installed: Array.isArray(answer.installed) ? answer.installed.map(String) : [],
  };
}

/** Binds the UKEY to the signed-in user (no id) or to user `id`; `silent`: the caller says what failed. */
export function bindUkey(serial: string, certificate: string, id?: string, silent = false) {
  return call(api.user.bindUkey, { body: { serial, certificate, ...(id ? { id } : {}) } }, { silent });
}

/**
 * Where a UKEY login failed: fetching the challenge (the server said why), the bridge
 * (not reachable, or its own error such as a wrong PIN: the same challenge can be tried
 * again), or the verification (the challenge is spent: sign in with the password again).
 */
export type UkeyStage = 'challenge' | 'bridge' | 'verify';

export class UkeyLoginError extends Error {
  readonly stage: UkeyStage;
  readonly unreachable: boolean;
  constructor(stage: UkeyStage, message: string, unreachable = false) {
    super(message);
    this.name = 'UkeyLoginError';
    this.stage = stage;
    this.unreachable = unreachable;
  }

  /** A new password login is needed before trying again. */
  get needsPassword(): boolean {
    return this.stage !== 'bridge';
  }
}

/**
 * The UKEY second factor after a right password (code 4503): the one-time challenge,
 * the UKEY's signature of it through the bridge, and the verification, which signs in.
 * Each call is silent: the caller shows what went wrong.
 */
export async function ukeyLogin(username: string, pin: string, bridge: string): Promise<SignedIn> {
  let random: string;
  try {
    random = (await call(api.user.random, { query: { name: username } }, { silent: true })).random;
  } catch (error) {
    throw new UkeyLoginError('challenge', error instanceof ApiError ? error.message : '');
  }
  let signature: string;
  try {
    signature = (await bridgeSign(bridge, pin, random)).signature;
  } catch (error) {
    if (error instanceof BridgeError) throw new UkeyLoginError('bridge', error.message, error.unreachable);
    throw error;
  }
  let data: SignedIn;
  try {
    data = await call(api.user.verify, { body: { name: username, sign: signature } }, { silent: true });
  } catch {
    // Rejected with no message of its own (docs/console.md#errors): the panel says it failed.
    throw new UkeyLoginError('verify', '');
  }
  saveSignedIn(data);
  return data;
}
