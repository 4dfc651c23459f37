import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { isIpRule } from '@ksp/contracts';
import { PASSWORD_COST } from './auth/password.js';
import { DEFAULT_PKCS11_DIRS } from './keyring/pkcs11-library.js';

/**
 * The only place that reads `process.env`. Values come from the environment, and
 * optionally from a JSON file named by KSP_CONFIG_FILE (environment wins).
 */
const Schema = z.object({
  KSP_HOST: z.string().default('127.0.0.1'),
  KSP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /**
   * The agent listener's port (docs/api.md "Agent listener"): agents' heartbeats served by a thread of their
   * own, off the API's event loop, on KSP_HOST with the same TLS. Unset: none (agents
   * heartbeat on KSP_PORT). 0: a free port chosen at start (tests).
   */
  KSP_AGENT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * The KMIP listener's port (docs/kmip.md#listener): TTLV over mutual TLS on KSP_HOST, with
   * KSP_KMIP_CERT / KSP_KMIP_KEY, else KSP_TLS_CERT / KSP_TLS_KEY. Unset: none (5696 is the
   * conventional port). 0: a free port chosen at start (tests).
   */
  KSP_KMIP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  KSP_KMIP_CERT: z.string().optional(),
  /** Seconds a KMIP connection may stay without a complete message before it is closed. */
  KSP_KMIP_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  KSP_KMIP_KEY: z.string().optional(),
  /**
   * The window, in seconds, over which a database client's reads of one key version (and its
   * refusals of one kind) share one audit record with a count (docs/tde-database.md#audit).
   */
  KSP_DB_KEY_AUDIT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  KSP_TLS_CERT: z.string().optional(),
  KSP_TLS_KEY: z.string().optional(),
  KSP_DATA_DIR: z.string().default('./data'),
  KSP_DATABASE_URL: z.string().optional(),
  KSP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  KSP_SESSION_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(30 * 86_400)
    .default(28_800),
  KSP_WEB_DIR: z.string().optional(),
  KSP_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KSP_NODE_NAME: z.string().optional(),
  /**
   * Where backup archives are written and read. Default: `backups` in the data directory. Nodes
   * of a cluster give it the same shared storage, so each reaches every archive.
   */
  KSP_BACKUP_DIR: z.string().optional(),
  /** Days server records are kept; older ones are removed daily with the chain re-anchored. 0: forever. */
  KSP_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  KSP_TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** Origins allowed to embed the console in an iframe, space separated. */
  KSP_FRAME_ANCESTORS: z.string().default("'self'"),
  /** Worker threads for post-quantum work; 0 runs it on the event loop. Default: one per core. */
  KSP_CRYPTO_WORKERS: z.coerce.number().int().min(0).max(64).optional(),
  /**
   * Sign-in attempts (password, app secret, UKEY signature) allowed per minute for one
   * username from one address, and from one address whatever the username; beyond them
   * the answer is HTTP 429 with Retry-After. Counted per node, on top of the lockout.
   */
  KSP_LOGIN_RATE_PER_USER: z.coerce.number().int().min(1).max(1_000_000).default(20),
  KSP_LOGIN_RATE_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(300),
  /**
   * SQLite `synchronous`: FULL (default) syncs the WAL at every commit, so a commit survives a
   * power loss; NORMAL is faster but may lose the last commits on power loss (docs/performance.md).
   */
  KSP_SQLITE_SYNCHRONOUS: z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(['FULL', 'NORMAL']))
    .default('FULL'),
  /**
   * When a successful cryptographic operation is answered: once its audit record and the key's
   * counter are committed (`commit`, default; flushed to disk right after), or only once they
   * are on disk (`disk`). Failed checks and every other write always wait for the disk.
   */
  KSP_OPERATION_RECORDS: z.enum(['commit', 'disk']).default('commit'),
  /**
   * The base URL issued certificates name for their CA's CRL (`/pki/crl/<ca>.crl`) and OCSP
   * responder (`/pki/ocsp/<ca>`): where relying parties reach this server. Default: the
   * address the server listens on.
   */
  KSP_PKI_URL: z
    .url({ protocol: /^https?$/ })
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /**
   * Directories a PKCS#11 library (settings › HSM) may be loaded from, separated by `:`;
   * `none`: no library at all. A library is code run inside the server, so only the operator
   * names where it may come from, never an API call. Default: Debian's PKCS#11 directories
   * (`DEFAULT_PKCS11_DIRS`, SoftHSM2's among them).
   */
  KSP_PKCS11_DIRS: z.string().optional(),
  /**
   * Networks the SMS servers page may point the server at (host key fetch, connection test,
   * rotation, terminal): CIDR ranges separated by spaces or commas, or `any`. Default: the
   * private ranges. Anything else is refused before a packet is sent.
   */
  KSP_SSH_ALLOWED_NETWORKS: z.string().default('10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7'),
  /** Seconds an SSH connection may take to be ready; a failed host key fetch answers after it. */
  KSP_SSH_TIMEOUT_S: z.coerce.number().int().min(1).max(120).default(10),
  /**
   * TESTS ONLY: one more Ed25519 public key (base64 of its 32 raw bytes) trusted to sign
   * licences besides the vendor's. The test suites mint licences with a key pair they make;
   * a production server leaves this unset.
   */
  /**
   * TESTS ONLY: the scrypt cost (log2 N) of the password hashes this server stores, below
   * production's 15 so that suites signing in thousands of times do not spend minutes hashing.
   * Refused unless NODE_ENV is `test` (docs/testing.md#sign-in-cost); unset: 15.
   */
  KSP_TEST_PASSWORD_COST: z.coerce.number().int().min(1).max(PASSWORD_COST).optional(),
  KSP_LICENSE_TEST_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'base64 of a 32-byte Ed25519 public key')
    .optional(),
});

export interface KspConfig {
  host: string;
  port: number;
  /** See KSP_AGENT_PORT; null: no agent listener. */
  agentPort: number | null;
  tls: { cert: string; key: string } | null;
  /** See KSP_KMIP_PORT; null: no KMIP listener. `tls`: its certificate and key files (absolute). */
  kmip: { port: number; tls: { cert: string; key: string } | null; idleSeconds: number } | null;
  /** See KSP_DB_KEY_AUDIT_SECONDS. */
  dbKeyAuditSeconds: number;
  dataDir: string;
  databaseUrl: string | null;
  session: { idleSeconds: number; maxSeconds: number };
  webDir: string | null;
  logLevel: z.infer<typeof Schema>['KSP_LOG_LEVEL'];
  nodeName: string;
  /** See KSP_BACKUP_DIR (absolute). */
  backupDir: string;
  /** Days server records are kept (0: forever). */
  logRetentionDays: number;
  trustProxy: boolean;
  frameAncestors: string[];
  cryptoWorkers: number;
  /** Sign-in attempts per minute (see KSP_LOGIN_RATE_PER_USER). */
  loginRate: { perUser: number; perAddress: number };
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** See KSP_OPERATION_RECORDS. */
  operationRecords: 'commit' | 'disk';
  /** See KSP_PKI_URL; null: the listening address. */
  pkiUrl: string | null;
  /** The scrypt cost (log2 N) of stored password hashes: PASSWORD_COST unless KSP_TEST_PASSWORD_COST (tests only). */
  passwordCost: number;
  /** See KSP_LICENSE_TEST_PUBLIC_KEY (tests only); null in production. */
  licenseTestPublicKey: string | null;
  /** See KSP_PKCS11_DIRS: absolute directories; empty: no PKCS#11 library may be loaded. */
  pkcs11Dirs: readonly string[];
  /** See KSP_SSH_ALLOWED_NETWORKS and KSP_SSH_TIMEOUT_S. */
  ssh: { networks: readonly string[] | 'any'; timeoutMs: number };
}

export class ConfigError extends Error {}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): KspConfig {
  let fileValues: Record<string, unknown> = {};
  if (env.KSP_CONFIG_FILE) {
    const file = resolve(cwd, env.KSP_CONFIG_FILE);
    if (!existsSync(file)) throw new ConfigError(`KSP_CONFIG_FILE ${file} does not exist`);
    try {
      fileValues = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`KSP_CONFIG_FILE ${file} is not valid JSON: ${(err as Error).message}`);
    }
  }
  const merged = { ...fileValues, ...pickKsp(env) };
  const parsed = Schema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const v = parsed.data;
  if (Boolean(v.KSP_TLS_CERT) !== Boolean(v.KSP_TLS_KEY)) {
    throw new ConfigError('KSP_TLS_CERT and KSP_TLS_KEY must be given together');
  }
  const tls = v.KSP_TLS_CERT && v.KSP_TLS_KEY ? { cert: v.KSP_TLS_CERT, key: v.KSP_TLS_KEY } : null;
  if (!tls && !isLoopback(v.KSP_HOST)) {
    throw new ConfigError(
      `Refusing to listen on ${v.KSP_HOST} without TLS: set KSP_TLS_CERT and KSP_TLS_KEY, ` +
        'or bind a loopback address (127.0.0.1)',
    );
  }
  if (Boolean(v.KSP_KMIP_CERT) !== Boolean(v.KSP_KMIP_KEY)) {
    throw new ConfigError('KSP_KMIP_CERT and KSP_KMIP_KEY must be given together');
  }
  if (v.KSP_TEST_PASSWORD_COST !== undefined && env.NODE_ENV !== 'test') {
    throw new ConfigError('KSP_TEST_PASSWORD_COST is for tests only: it is refused unless NODE_ENV=test');
  }
  if (v.KSP_SESSION_IDLE_SECONDS > v.KSP_SESSION_MAX_SECONDS) {
    throw new ConfigError('KSP_SESSION_IDLE_SECONDS must not exceed KSP_SESSION_MAX_SECONDS');
  }
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const pkcs11Dirs = pkcs11DirsOf(v.KSP_PKCS11_DIRS);
  const sshNetworks = v.KSP_SSH_ALLOWED_NETWORKS.split(/[\s,]+/).filter(Boolean);
  const badNetwork = sshNetworks.find((n) => n !== 'any' && !isIpRule(n));
  if (badNetwork !== undefined)
    throw new ConfigError(`KSP_SSH_ALLOWED_NETWORKS: ${badNetwork} is not an address or CIDR range`);
  return {
    host: v.KSP_HOST,
    port: v.KSP_PORT,
    agentPort: v.KSP_AGENT_PORT ?? null,
    tls: tls ? { cert: abs(tls.cert), key: abs(tls.key) } : null,
    kmip:
      v.KSP_KMIP_PORT === undefined
        ? null
        : {
            port: v.KSP_KMIP_PORT,
            idleSeconds: v.KSP_KMIP_IDLE_SECONDS,
            tls:
              v.KSP_KMIP_CERT && v.KSP_KMIP_KEY
                ? { cert: abs(v.KSP_KMIP_CERT), key: abs(v.KSP_KMIP_KEY) }
                : tls
                  ? { cert: abs(tls.cert), key: abs(tls.key) }
                  : null,
          },
    dbKeyAuditSeconds: v.KSP_DB_KEY_AUDIT_SECONDS,
    dataDir: abs(v.KSP_DATA_DIR),
    databaseUrl: v.KSP_DATABASE_URL ?? null,
    session: { idleSeconds: v.KSP_SESSION_IDLE_SECONDS, maxSeconds: v.KSP_SESSION_MAX_SECONDS },
    webDir: v.KSP_WEB_DIR ? abs(v.KSP_WEB_DIR) : null,
    logLevel: v.KSP_LOG_LEVEL,
    nodeName: v.KSP_NODE_NAME ?? `ksp-${process.pid}`,
    backupDir: v.KSP_BACKUP_DIR ? abs(v.KSP_BACKUP_DIR) : resolve(abs(v.KSP_DATA_DIR), 'backups'),
    logRetentionDays: v.KSP_LOG_RETENTION_DAYS,
    trustProxy: v.KSP_TRUST_PROXY === 'true',
    frameAncestors: v.KSP_FRAME_ANCESTORS.split(/\s+/).filter(Boolean),
    cryptoWorkers: v.KSP_CRYPTO_WORKERS ?? availableParallelism(),
    loginRate: { perUser: v.KSP_LOGIN_RATE_PER_USER, perAddress: v.KSP_LOGIN_RATE_PER_ADDRESS },
    sqliteSynchronous: v.KSP_SQLITE_SYNCHRONOUS,
    operationRecords: v.KSP_OPERATION_RECORDS,
    pkiUrl: v.KSP_PKI_URL ?? null,
    passwordCost: v.KSP_TEST_PASSWORD_COST ?? PASSWORD_COST,
    licenseTestPublicKey: v.KSP_LICENSE_TEST_PUBLIC_KEY ?? null,
    pkcs11Dirs,
    ssh: {
      networks: sshNetworks.includes('any') ? 'any' : sshNetworks,
      timeoutMs: v.KSP_SSH_TIMEOUT_S * 1000,
    },
  };
}

function pkcs11DirsOf(value: string | undefined): readonly string[] {
  if (value === undefined) return DEFAULT_PKCS11_DIRS;
  if (value.trim() === 'none') return [];
  const dirs = value
    .split(':')
    .map((d) => d.trim())
    .filter(Boolean);
  const relativeDir = dirs.find((d) => !isAbsolute(d));
  if (relativeDir !== undefined)
    throw new ConfigError(`KSP_PKCS11_DIRS: ${relativeDir} is not an absolute directory`);
  return dirs.map((d) => resolve(d));
}

function pickKsp(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (k.startsWith('KSP_') && v !== undefined && v !== '') out[k] = v;
  return out;
}
