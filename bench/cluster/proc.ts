/**
 * Processes for the cluster benchmark: background programs with their output in a log file,
 * short commands run to completion (always asynchronous: the load runs in this process), and
 * the few /proc readings needed to stop a whole PostgreSQL node at once.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs a command to its end; rejects with its output on a non-zero exit. */
export async function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 16 * 1024 * 1024,
      encoding: 'utf8',
    });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, {
      cause: err,
    });
  }
}

export interface Background {
  readonly name: string;
  readonly pid: number;
  readonly log: string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>;
  running(): boolean;
  /** Sends `signal` to the process's whole process group (it leads one: spawned detached). */
  signalGroup(signal: NodeJS.Signals): void;
}

/**
 * A program in the background, leading a process group of its own (so that everything it
 * starts can be signalled at once), its standard output and error appended to `log`.
 */
export function background(
  name: string,
  command: string,
  args: string[],
  log: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Background {
  const fd = openSync(log, 'a');
  let proc: ChildProcess;
  try {
    proc = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  let ended = false;
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? 'unknown');
    });
    proc.once('error', (err) => {
      ended = true;
      resolve(err.message);
    });
  });
  return {
    name,
    pid: proc.pid ?? 0,
    log,
    exited,
    running: () => !ended,
    signalGroup(signal) {
      if (ended || !proc.pid) return;
      try {
        process.kill(-proc.pid, signal);
      } catch {
        // The group is already gone.
      }
    },
  };
}

/** The last `lines` lines of a log file ('' when there is none). */
export function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Pids of the processes whose parent is `ppid` (Linux /proc). */
export function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) comes after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** The command line of a process, '' once it has ended. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Sends a signal, ignoring a process that is already gone. */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** Resolves true once `check` answers true, false after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, stepMs = 200) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await sleep(stepMs);
  }
}

/** Clean-up run on SIGINT/SIGTERM as well as at the end: each registered step once, last first. */
const cleanups: (() => Promise<void>)[] = [];
let signalled = false;
export function onCleanup(step: () => Promise<void>): void {
  cleanups.push(step);
}
export async function cleanUp(): Promise<void> {
  while (cleanups.length) {
    const step = cleanups.pop()!;
    try {
      await step();
    } catch (err) {
      console.error('clean-up step failed:', err);
    }
  }
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (signalled) return;
    signalled = true;
    console.error(`\n${sig}: stopping every process this run started…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** True when the module at `url` is the script node was started with. */
export function isMain(url: string): boolean {
  return Boolean(process.argv[1]) && fileURLToPath(url) === resolve(process.argv[1]!);
}
