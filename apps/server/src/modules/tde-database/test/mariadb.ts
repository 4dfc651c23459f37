import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../test/free-port.js';

const run = promisify(execFile);

const MARIADBD = '/usr/sbin/mariadbd';
const CLIENT = '/usr/bin/mariadb';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const PLUGIN_DIR = '/usr/lib/mysql/plugin';
const PLUGIN = 'hashicorp_key_management';
/** How long a start may take before it is given up (with the tail of the error log). */
const START_MS = 60_000;
/** How long a clean shutdown may take before the process is killed. */
const STOP_MS = 60_000;
const LOG_TAIL_LINES = 40;

/** Whether Debian's MariaDB server and its HashiCorp key management plugin are installed. */
export function mariadbAvailable(): boolean {
  return (
    existsSync(MARIADBD) &&
    existsSync(CLIENT) &&
    existsSync(INSTALL_DB) &&
    existsSync(join(PLUGIN_DIR, `${PLUGIN}.so`))
  );
}

/** How the `hashicorp_key_management` plugin reaches the key endpoint, and how it caches. */
export interface MariadbOptions {
  /** The plugin's URL: `https://127.0.0.1:<port>/v1/tde`. */
  vaultUrl: string;
  /** The database client's token (sent as X-Vault-Token). */
  token: string;
  /** The CA file the plugin checks the endpoint's certificate with. */
  caFile: string;
  /** The plugin's key cache (`--hashicorp-key-management-caching-enabled`); on by default, as in the plugin. */
  cacheEnabled?: boolean;
  /** How long the plugin trusts the latest version it read, in milliseconds (the plugin's default is 60 000). */
  cacheVersionTimeoutMs?: number;
  /** Whether the plugin checks the mount (KV version 2) when it starts; on by default, as in the plugin. */
  checkKvVersion?: boolean;
  /** More mariadbd arguments, after the fixture's own. */
  extraArgs?: string[];
}

/** A MariaDB server of its own (data directory, socket, port), its tables encrypted with keys read through the plugin. */
export interface Mariadb {
  port: number;
  socket: string;
  datadir: string;
  /** The options it was last started with. */
  options: MariadbOptions;
  /** Runs SQL (several statements may be given) as root; the rows of the last result, each a list of column texts. */
  query(sql: string): Promise<string[][]>;
  /** Stops it cleanly and starts it again with these options changed; throws (with the error log's tail) when it does not start. */
  restart(changes?: Partial<MariadbOptions>): Promise<void>;
  /** Starts it after a stop or a failed start, with these options changed. */
  start(changes?: Partial<MariadbOptions>): Promise<void>;
  /** A clean shutdown; `slow`: InnoDB first writes every change into the data files (innodb_fast_shutdown=0). */
  stop(o?: { slow?: boolean }): Promise<void>;
  /** Kills the process (SIGKILL) and waits for it to end. */
  kill(): Promise<void>;
  /** Whether the server process is running. */
  running(): boolean;
  /** Resolves when the running server process ends (at once when none runs). */
  exited(): Promise<void>;
  /** The text of its error log. */
  errorLog(): string;
  /** Kills whatever runs and removes the directory. */
  close(): Promise<void>;
}

/** Thrown when mariadbd does not become ready: its message ends with the tail of the error log. */
export class MariadbStartError extends Error {}

/** Processes started here and not yet ended: killed if the test process exits without closing them. */
const live = new Set<ChildProcess>();
let exitHookSet = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookSet) {
    exitHookSet = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

const asRoot = () => process.getuid?.() === 0;

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function pluginArgs(o: MariadbOptions): string[] {
  return [
    `--plugin-dir=${PLUGIN_DIR}`,
    `--plugin-load-add=${PLUGIN}`,
    // FORCE: mariadbd refuses to start when the plugin cannot start (rather than starting without it).
    `--${PLUGIN.replaceAll('_', '-')}=FORCE`,
    `--hashicorp-key-management-vault-url=${o.vaultUrl}`,
    `--hashicorp-key-management-token=${o.token}`,
    `--hashicorp-key-management-vault-ca=${o.caFile}`,
    // Seconds before a request is given up; an unreachable endpoint on loopback is refused at once anyway.
    '--hashicorp-key-management-timeout=5',
    // The plugin's switches take a value: a bare `--hashicorp-key-management-caching-enabled` would
    // take the next argument as its value.
    `--hashicorp-key-management-caching-enabled=${o.cacheEnabled === false ? 'OFF' : 'ON'}`,
    `--hashicorp-key-management-check-kv-version=${o.checkKvVersion === false ? 'OFF' : 'ON'}`,
    ...(o.cacheVersionTimeoutMs !== undefined
      ? [`--hashicorp-key-management-cache-version-timeout=${o.cacheVersionTimeoutMs}`]
      : []),
  ];
}

/** InnoDB's settings: small, every table and the redo log encrypted, keys rotated as soon as a new version shows. */
const INNODB_ARGS = [
  '--innodb-buffer-pool-size=32M',
  '--innodb-log-file-size=8M',
  '--innodb-encrypt-tables=ON',
  '--innodb-encrypt-log=ON',
  '--innodb-encrypt-temporary-tables=ON',
  '--innodb-encryption-threads=2',
  '--innodb-encryption-rotate-key-age=1',
  // No buffer pool dump loaded at start: no table's pages are read before it is queried (with it,
  // a table whose key is refused at start is marked corrupted before any query).
  '--innodb-buffer-pool-dump-at-shutdown=OFF',
  '--innodb-buffer-pool-load-at-startup=OFF',
];

/**
 * Makes a fresh MariaDB data directory (mariadb-install-db) and starts mariadbd on it with the
 * `hashicorp_key_management` plugin pointed at `vaultUrl`: its own port on 127.0.0.1, socket,
 * pid file and error log, nothing read from the system's my.cnf. Resolves once it answers a
 * query; throws with the error log's tail when it does not within a minute.
 */
export async function startMariadb(options: MariadbOptions): Promise<Mariadb> {
  const dir = mkdtempSync(join(tmpdir(), 'ksp-mariadb-'));
  const datadir = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const logFile = join(dir, 'error.log');
  const user = asRoot() ? ['--user=root'] : [];
  try {
    await run(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        ...user,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
        // Passed on to the bootstrap server: the redo log is made at its small size.
        '--innodb-log-file-size=8M',
        '--innodb-buffer-pool-size=32M',
      ],
      { encoding: 'utf8', timeout: START_MS },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${String(err)}`, { cause: err });
  }
  const port = await freePort();
  let current = { ...options };
  let child: ChildProcess | null = null;

  const errorLog = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const tail = () => errorLog().trimEnd().split('\n').slice(-LOG_TAIL_LINES).join('\n');

  const client = (sql: string, timeout: number) =>
    run(
      CLIENT,
      [
        '--no-defaults',
        `--socket=${socket}`,
        '--user=root',
        '--batch',
        '--raw',
        '--skip-column-names',
        '--connect-timeout=5',
        '-e',
        sql,
      ],
      { encoding: 'utf8', timeout, maxBuffer: 16 * 1024 * 1024 },
    );

  const query = async (sql: string): Promise<string[][]> => {
    const { stdout } = await client(sql, 60_000);
    return stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\t'));
  };

  const start = async (changes: Partial<MariadbOptions> = {}) => {
    if (child && child.exitCode === null && child.signalCode === null)
      throw new Error('mariadbd is already running');
    current = { ...current, ...changes };
    const proc = spawn(
      MARIADBD,
      [
        // First, or mariadbd reads the system's option files (and the system instance's settings).
        '--no-defaults',
        ...user,
        `--datadir=${datadir}`,
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'mariadbd.pid')}`,
        `--log-error=${logFile}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-networking=0',
        '--skip-name-resolve',
        ...INNODB_ARGS,
        ...pluginArgs(current),
        ...(current.extraArgs ?? []),
      ],
      { stdio: 'ignore' },
    );
    track(proc);
    child = proc;
    let ended = false;
    const gone = exitOf(proc).then(() => (ended = true));
    const deadline = Date.now() + START_MS;
    for (;;) {
      try {
        await client('SELECT 1', 10_000);
        return;
      } catch {
        if (ended)
          throw new MariadbStartError(
            `mariadbd exited while starting (code ${proc.exitCode ?? proc.signalCode}); its error log ends:\n${tail()}`,
          );
        if (Date.now() > deadline) {
          proc.kill('SIGKILL');
          await gone;
          throw new MariadbStartError(
            `mariadbd did not answer within ${START_MS / 1000} s; its error log ends:\n${tail()}`,
          );
        }
        // The next try, or the process's end, whichever comes first.
        await Promise.race([gone, new Promise((r) => setTimeout(r, 200))]);
      }
    }
  };

  const kill = async () => {
    if (!child) return;
    const proc = child;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exitOf(proc);
  };

  const stop = async (o: { slow?: boolean } = {}) => {
    if (!child) return;
    const proc = child;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (o.slow) await query('SET GLOBAL innodb_fast_shutdown = 0');
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_MS);
    await exitOf(proc);
    clearTimeout(timer);
  };

  try {
    await start();
  } catch (err) {
    await kill();
    const log = errorLog();
    rmSync(dir, { recursive: true, force: true });
    if (err instanceof MariadbStartError) throw err;
    throw new Error(`${String(err)}\n${log}`, { cause: err });
  }

  return {
    port,
    socket,
    datadir,
    get options() {
      return current;
    },
    query,
    start,
    restart: async (changes) => {
      await stop();
      await start(changes);
    },
    stop,
    kill,
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    exited: () => (child ? exitOf(child) : Promise.resolve()),
    errorLog,
    close: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
