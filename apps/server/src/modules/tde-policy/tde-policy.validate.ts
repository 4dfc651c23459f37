import type { PolicyElementKind } from '@ksp/contracts';
import { invalid } from '../../platform/errors.js';

/** Entry rules of policy elements (README.md): each refusal names the field and the rule. */

const hasDotSegment = (path: string, sep: RegExp) => path.split(sep).some((s) => s === '.' || s === '..');

/** A path within a guard point: "/" or "/a/b", no "." or ".." segment, no NUL, no backslash. */
export function checkGuardPointPath(field: string, path: string): string {
  if (!path.startsWith('/') || path.includes('\0') || path.includes('\\') || hasDotSegment(path, /\/+/))
    throw invalid('tdePolicy.pathInGuardPoint', { field });
  // One form for one place: no doubled or trailing separator (but "/" itself).
  const normal = path.replace(/\/{2,}/g, '/');
  return normal.length > 1 ? normal.replace(/\/$/, '') : normal;
}

/** An absolute path of a host: POSIX ("/usr/bin") or Windows ("C:\\Tools"). */
export function checkAbsolutePath(field: string, path: string): string {
  const posix = path.startsWith('/');
  const windows = /^[A-Za-z]:[\\/]/.test(path);
  if ((!posix && !windows) || path.includes('\0') || hasDotSegment(path, /[\\/]+/))
    throw invalid('tdePolicy.pathAbsolute', { field });
  return path;
}

/** A file name or pattern: no separator, no NUL. */
export function checkFileName(field: string, name: string): string {
  if (/[\\/\0]/.test(name)) throw invalid('tdePolicy.fileName', { field });
  return name;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
export function checkHash(field: string, hash: string): string {
  if (!HEX64.test(hash)) throw invalid('tdePolicy.hashHex', { field });
  return hash.toLowerCase();
}

/** The entry arrays that belong to each kind (the others must be empty). */
export const arraysOfKind: Record<PolicyElementKind, readonly string[]> = {
  resource: ['resources'],
  user: ['users'],
  process: ['processes'],
  signature: ['source_list', 'signatures'],
};
export const allEntryArrays = ['resources', 'users', 'processes', 'source_list', 'signatures'] as const;
