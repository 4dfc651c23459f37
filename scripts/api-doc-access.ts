// Rewrites the "Scope / tokens" line of every call in docs/api.md from the contract, so the
// document says exactly what the server enforces. `npx tsx scripts/api-doc-access.ts`
// (the contracts test fails when the document and the contract disagree).
import { readFileSync, writeFileSync } from 'node:fs';
import { accessLineOf, allCalls } from '../packages/contracts/src/index.js';

const file = new URL('../docs/api.md', import.meta.url);
const calls = allCalls;
let text = readFileSync(file, 'utf8');
for (const def of calls) {
  const heading = `#### \`${def.method} ${def.path}\``;
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`docs/api.md has no section ${heading}`);
  const next = text.indexOf('\n#### ', at + heading.length);
  const end = next < 0 ? text.length : next;
  const section = text.slice(at, end).replace(/^- \*\*Scope \/ tokens\*\*.*$/m, accessLineOf(def));
  text = text.slice(0, at) + section + text.slice(end);
}
writeFileSync(file, text);
