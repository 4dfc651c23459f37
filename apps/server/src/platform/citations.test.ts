import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Nothing in the repository cites a document outside it (docs/style.md#citations): someone with
 * only this repository must be able to follow every citation. Fails on an upper-case document
 * name (`NOTES.md`) that no file of the repository has, on names of the team's old design notes
 * and console spec kept elsewhere, and on a `docs/<page>.md` or `docs/<page>.md#<section>` that
 * does not exist.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const self = relative(root, fileURLToPath(import.meta.url));

const skippedDirs = new Set(['node_modules', 'dist', '.git', 'data', '.tmp', 'test-results', 'fixtures']);
const skippedFiles = new Set(['package-lock.json']);

function repositoryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return skippedDirs.has(entry.name) ? [] : repositoryFiles(path);
    if (!entry.isFile() || skippedFiles.has(entry.name)) return [];
    return statSync(path).size <= 1_000_000 ? [path] : [];
  });
}

/** The text of each readable text file, by its path from the repository root. */
function texts(): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of repositoryFiles(root)) {
    const buffer = readFileSync(path);
    if (buffer.includes(0)) continue;
    out.set(relative(root, path), buffer.toString('utf8'));
  }
  return out;
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown page offers (a repeated heading gets `-1`, `-2`...). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const anchor = headingAnchor(heading[1]!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    out.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return out;
}

/** Where documents outside the repository are named; none of these may appear. */
const outsidePatterns: readonly RegExp[] = [
  /\bconsole[- ]spec\b/i,
  /\bshared\/(?:design|spec)\b/,
  /\/work\/shared\b/,
  /\bspec\s§\s*\d/i,
];

/** What one file cites that the repository does not hold, as readable lines. */
function outsideCitations(
  path: string,
  text: string,
  repositoryNames: ReadonlySet<string>,
  docAnchors: ReadonlyMap<string, Set<string>>,
): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    const at = `${path}:${index + 1}`;
    for (const pattern of outsidePatterns) {
      const found = pattern.exec(line);
      if (found) problems.push(`${at}: names "${found[0]}", a document outside the repository`);
    }
    for (const found of line.matchAll(/(?<![\w./-])([A-Z][A-Z0-9_-]*\.md)\b/g)) {
      if (!repositoryNames.has(found[1]!)) {
        problems.push(`${at}: names ${found[1]}, which is not in the repository`);
      }
    }
    for (const found of line.matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
      const anchors = docAnchors.get(found[1]!);
      if (!anchors) problems.push(`${at}: names docs/${found[1]}, which does not exist`);
      else if (found[2] && !anchors.has(found[2])) {
        problems.push(`${at}: names docs/${found[1]}#${found[2]}, a section docs/${found[1]} does not have`);
      }
    }
  });
  return problems;
}

describe('citations', () => {
  const files = texts();
  const names = new Set([...files.keys()].map((path) => basename(path)));
  const docAnchors = new Map(
    [...files]
      .filter(([path]) => dirname(path) === 'docs' && path.endsWith('.md'))
      .map(([path, text]) => [basename(path), anchorsOf(text)]),
  );

  it('finds the repository and its docs', () => {
    expect(existsSync(join(root, 'package.json'))).toBe(true);
    expect(docAnchors.get('modules.md')?.has('console-routes')).toBe(true);
  });

  it('cite only documents and sections that are in the repository', () => {
    const problems = [...files]
      .filter(([path]) => path !== self)
      .flatMap(([path, text]) => outsideCitations(path, text, names, docAnchors));
    expect(problems).toEqual([]);
  });

  it('catches a citation of a document outside the repository', () => {
    const anchors = new Map([['modules.md', new Set(['keys'])]]);
    const repo = new Set(['README.md']);
    const check = (line: string) => outsideCitations('x.ts', line, repo, anchors);
    expect(check('/** Keys (NOTES.md §1.1). */')).toHaveLength(1);
    // Spelt in pieces, so that this file names no outside document itself.
    expect(check(`// see the ${['console', 'spec'].join('-')}, §2`)).toHaveLength(1);
    expect(check(`// the fields of ${'spec'} §3`)).toHaveLength(1);
    expect(check(`(../${'shared'}/design/X)`)).toHaveLength(1);
    expect(check('docs/missing.md')).toHaveLength(1);
    expect(check('docs/modules.md#no-such-section')).toHaveLength(1);
    expect(check('docs/modules.md#keys, README.md, apps/web/README.md')).toEqual([]);
  });

  it('derives the anchors GitHub gives headings', () => {
    expect([
      ...anchorsOf('# Module reference\n## Keys\n### Key states\n## Keys\n```\n# not a heading\n```'),
    ]).toEqual(['module-reference', 'keys', 'key-states', 'keys-1']);
    expect(headingAnchor('Server (`apps/server`)')).toBe('server-appsserver');
    expect(headingAnchor('SMS: credentials and servers')).toBe('sms-credentials-and-servers');
  });
});
