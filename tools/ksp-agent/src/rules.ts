import { posix } from 'node:path';
import type {
  AgentKeyRule,
  AgentProcessEntry,
  AgentResourceEntry,
  AgentSecurityRule,
  AgentUserEntry,
  PolicyAction,
} from '@ksp/contracts';

/** Who asks: the OS user (uid/gid and their names). */
export interface Subject {
  uid: number;
  gid: number;
  uname?: string;
  gname?: string;
}

/** The process that asks: its executable's absolute path and (when a rule needs it) its SHA-256. */
export interface ProcessInfo {
  path: string;
  sha256?: string;
}

/** One access to decide. `resource` is the path relative to the guard point, starting with "/". */
export interface Access {
  user: Subject;
  process: ProcessInfo;
  resource: string;
  action: Exclude<PolicyAction, 'all_ops'>;
}

export interface Decision {
  /** The access may proceed. */
  permit: boolean;
  /** Record the access (client log). */
  audit: boolean;
  /** Data is seen decrypted (applykey); a permit without it sees the ciphertext. */
  applykey: boolean;
  /** The order of the rule that decided; null when none matched (deny). */
  rule: number | null;
  /** Learn mode turned a deny into a permit. */
  learned: boolean;
}

/** `*` matches within one path segment, `?` one character; everything else literally. */
export function globMatch(glob: string, name: string): boolean {
  const re = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${re}$`).test(name);
}

const normDir = (dir: string) => {
  const d = posix.normalize(`/${dir}`).replace(/\/+$/, '');
  return d === '' ? '/' : d;
};

export function userMatches(entry: AgentUserEntry, user: Subject): boolean {
  if (entry.uid !== undefined && entry.uid !== user.uid) return false;
  if (entry.gid !== undefined && entry.gid !== user.gid) return false;
  if (entry.uname !== undefined && entry.uname !== user.uname) return false;
  if (entry.gname !== undefined && entry.gname !== user.gname) return false;
  return true;
}

export function processMatches(entry: AgentProcessEntry, process: ProcessInfo): boolean {
  if (entry.directory && normDir(entry.directory) !== normDir(posix.dirname(process.path))) return false;
  if (entry.file && !globMatch(entry.file, posix.basename(process.path))) return false;
  if (entry.sha256 && entry.sha256.length > 0) {
    if (!process.sha256 || !entry.sha256.map((h) => h.toLowerCase()).includes(process.sha256)) return false;
  }
  return true;
}

/** `resource` is relative to the guard point ("/a/b.txt"). */
export function resourceMatches(entry: AgentResourceEntry, resource: string): boolean {
  const path = normDir(resource);
  const dir = posix.dirname(path);
  const base = posix.basename(path);
  const want = normDir(entry.directory);
  const inside = dir === want || (entry.include_subfolders && (want === '/' || dir.startsWith(`${want}/`)));
  if (!inside) return false;
  return !entry.file || globMatch(entry.file, base);
}

/** An absent set matches anything; a present one when some entry matches, inverted by its exclude flag. */
function setMatches<E>(entries: E[] | undefined, exclude: boolean | undefined, match: (e: E) => boolean) {
  if (!entries || entries.length === 0) return true;
  const hit = entries.some(match);
  return exclude ? !hit : hit;
}

export function ruleMatches(rule: AgentSecurityRule, access: Access): boolean {
  if (!rule.actions.includes('all_ops') && !rule.actions.includes(access.action)) return false;
  return (
    setMatches(rule.users, rule.exclude_users, (e) => userMatches(e, access.user)) &&
    setMatches(rule.processes, rule.exclude_processes, (e) => processMatches(e, access.process)) &&
    setMatches(rule.resources, rule.exclude_resources, (e) => resourceMatches(e, access.resource))
  );
}

/**
 * The policy's decision on one access: the rules in `order`, the first that matches decides
 * (deny wins over permit within it); none matching is a deny. Learn mode never denies: a deny
 * becomes permit + audit (with the key applied, so the application works as it would).
 */
export function evaluate(rules: AgentSecurityRule[], access: Access, learnMode = false): Decision {
  const ordered = [...rules].sort((a, b) => a.order - b.order);
  const rule = ordered.find((r) => ruleMatches(r, access));
  const effects = rule?.effects ?? [];
  const denied = !rule || effects.includes('deny') || !effects.includes('permit');
  if (denied && learnMode)
    return { permit: true, audit: true, applykey: true, rule: rule?.order ?? null, learned: true };
  return {
    permit: !denied,
    audit: effects.includes('audit') || denied,
    applykey: !denied && effects.includes('applykey'),
    rule: rule?.order ?? null,
    learned: false,
  };
}

/** The key rule for a file (first matching in order): its key id, null for clear, undefined when none matches. */
export function keyFor(rules: AgentKeyRule[], resource: string): string | null | undefined {
  const ordered = [...rules].sort((a, b) => a.order - b.order);
  const rule = ordered.find(
    (r) => !r.resources?.length || r.resources.some((e) => resourceMatches(e, resource)),
  );
  return rule ? rule.key_id : undefined;
}
