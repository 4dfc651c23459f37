import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { openDatabase, migrate } from './dist/platform/db/database.js';
import { createJournal } from './dist/platform/db/journal.js';
import { auditRow } from './dist/platform/audit.js';
const mode = process.argv[2] ?? 'FULL'; const kind = process.argv[3] ?? 'operations';
const h = openDatabase({ url: null, dataDir: mkdtempSync(join(tmpdir(),'jb-')), sqliteSynchronous: mode });
await migrate(h.db);
const j = createJournal(h);
const who = { userId: 'u1', username: 'bench', domainId: 'd1', domainName: 'root' };
const N = 40000, C = 16;
let done = 0;
const t0 = performance.now(); const cpu0 = process.cpuUsage();
async function worker() { while (done < N) { done++; await j.write({ [kind]: [auditRow({ who, action: 'crypto.encrypt', target: 'bench-aes', result: 'success', ip: '127.0.0.1', objectId: '0190-key', details: { key_id: '0190-key', version: 1 } })] }, 'commit'); } }
await Promise.all(Array.from({ length: C }, worker));
const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0);
console.log(mode, kind, 'ops/s', (N / ms * 1000).toFixed(0), 'process CPU µs/op', ((cpu.user + cpu.system) / N).toFixed(1));
await j.flush(); await h.close();
