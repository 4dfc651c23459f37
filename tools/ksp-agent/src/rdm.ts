import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, watch, type FSWatcher } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { AgentConfig, AgentGuardPoint, AgentProcessEntry } from '@ksp/contracts';
import { processMatches } from './rules.js';
import { TEMP_MARK } from './guard.js';

/** The event name of a suspicious process in the client logs (counted by the RDM pages). */
export const RDM_EVENT = 'rdm.suspicious';
/** An rwp guard point's threshold (the profile has none): this many files within this many seconds. */
export const RWP_THRESHOLD = { files: 20, window_s: 10 };

export interface RdmWatch {
  gp: AgentGuardPoint;
  policy: string;
  mode: 'audit' | 'block';
  trusted: AgentProcessEntry[];
  threshold: { files: number; window_s: number };
}

/** What RDM watches in a configuration: guard points with an RDM policy, and rwp guard points (the profile's settings). */
export function rdmWatchesOf(config: AgentConfig | undefined): RdmWatch[] {
  const out: RdmWatch[] = [];
  for (const gp of config?.guard_points ?? []) {
    if (!gp.enabled) continue;
    if (gp.policy?.type === 'rdm' && gp.policy.rdm)
      out.push({
        gp,
        policy: gp.policy.name,
        mode: gp.policy.rdm.mode,
        trusted: gp.policy.rdm.trusted_processes,
        threshold: gp.policy.rdm.threshold,
      });
    else if (gp.type === 'rwp')
      out.push({
        gp,
        policy: '',
        mode: config?.profile?.rwp_operation === 'deny' ? 'block' : 'audit',
        trusted: config?.profile?.rwp_trusted_processes ?? [],
        threshold: RWP_THRESHOLD,
      });
  }
  return out;
}

export interface SuspiciousProcess {
  watch: RdmWatch;
  pid: number;
  exe: string;
  files: string[];
  trusted: boolean;
  killed: boolean;
}

const readLink = (path: string) => {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
};

/**
 * Ransomware detection in user space (README.md "RDM"): the guard points are watched; each
 * changed file is attributed to the processes holding it open (/proc/<pid>/fd) or working inside
 * the guard point (/proc/<pid>/cwd). A process that changed at least `threshold.files` files
 * within `threshold.window_s` seconds is reported; in block mode it is killed (SIGKILL) unless
 * its executable is in the trusted process set.
 */
export class RdmMonitor {
  private watchers: FSWatcher[] = [];
  private watches: RdmWatch[] = [];
  private pending = new Map<string, RdmWatch>();
  private timer: NodeJS.Timeout | null = null;
  /** pid → watch guard point → file → last change (ms). */
  private seen = new Map<number, Map<string, Map<string, number>>>();
  private flagged = new Set<string>();

  constructor(private readonly report: (event: SuspiciousProcess) => void) {}

  update(watches: RdmWatch[]) {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.watches = watches;
    for (const watchDef of watches) {
      const root = resolve(watchDef.gp.path);
      try {
        const watcher = watch(root, { recursive: true }, (_event, name) => {
          if (!name || String(name).includes(TEMP_MARK)) return;
          this.pending.set(join(root, String(name)), watchDef);
          this.timer ??= setTimeout(() => this.scan(), 50);
        });
        watcher.on('error', () => undefined);
        this.watchers.push(watcher);
      } catch {
        // A guard point that does not exist (yet) is watched from the next configuration.
      }
    }
  }

  close() {
    this.update([]);
    if (this.timer) clearTimeout(this.timer);
  }

  private scan() {
    this.timer = null;
    const changed = [...this.pending];
    this.pending.clear();
    const now = Date.now();
    const procs = this.processes();
    for (const [path, watchDef] of changed) {
      const root = resolve(watchDef.gp.path);
      const holders = procs.filter((p) => p.fds.includes(path));
      const workers = holders.length
        ? holders
        : procs.filter((p) => p.cwd !== undefined && (p.cwd === root || p.cwd.startsWith(root + sep)));
      for (const p of workers) {
        let byGp = this.seen.get(p.pid);
        if (!byGp) this.seen.set(p.pid, (byGp = new Map<string, Map<string, number>>()));
        let files = byGp.get(root);
        if (!files) byGp.set(root, (files = new Map<string, number>()));
        files.set(path, now);
        for (const [f, t] of files) if (now - t > watchDef.threshold.window_s * 1000) files.delete(f);
        const key = `${p.pid}:${root}`;
        if (files.size >= watchDef.threshold.files && !this.flagged.has(key)) {
          this.flagged.add(key);
          this.flag(watchDef, p.pid, [...files.keys()]);
        }
      }
    }
    // Forget processes that are gone.
    const alive = new Set(procs.map((p) => p.pid));
    for (const pid of this.seen.keys()) if (!alive.has(pid)) this.seen.delete(pid);
  }

  private flag(watchDef: RdmWatch, pid: number, files: string[]) {
    const exe = readLink(`/proc/${pid}/exe`) ?? '';
    let sha256: string | undefined;
    if (watchDef.trusted.some((t) => t.sha256?.length)) {
      try {
        sha256 = createHash('sha256').update(readFileSync(exe)).digest('hex');
      } catch {
        sha256 = undefined;
      }
    }
    const trusted = watchDef.trusted.some((t) =>
      processMatches(t, { path: exe, ...(sha256 ? { sha256 } : {}) }),
    );
    let killed = false;
    if (watchDef.mode === 'block' && !trusted) {
      try {
        process.kill(pid, 'SIGKILL');
        killed = true;
      } catch {
        killed = false;
      }
    }
    this.report({ watch: watchDef, pid, exe, files, trusted, killed });
  }

  /** Every other process: its cwd and the files it holds open. */
  private processes(): { pid: number; cwd?: string; fds: string[] }[] {
    const out: { pid: number; cwd?: string; fds: string[] }[] = [];
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return out;
    }
    for (const name of entries) {
      if (!/^\d+$/.test(name)) continue;
      const pid = Number(name);
      if (pid === process.pid) continue;
      const cwd = readLink(`/proc/${pid}/cwd`);
      const fds: string[] = [];
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          const target = readLink(`/proc/${pid}/fd/${fd}`);
          if (target?.startsWith('/')) fds.push(target);
        }
      } catch {
        // Another user's process, or gone.
      }
      out.push({ pid, ...(cwd ? { cwd } : {}), fds });
    }
    return out;
  }
}
