import { expect } from 'vitest';
import { api } from '@ksp/contracts';
import { call, type TestServer } from './harness.js';

/** Test helpers of the backup suites: archives and key files in and out through the calls. */

export async function fetchArchive(server: TestServer, token: string, id: string): Promise<Buffer> {
  const res = await server.app.inject({
    method: 'GET',
    url: `${api.backup.download.path}?id=${id}`,
    headers: { token },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('application/octet-stream');
  return res.rawPayload;
}

export async function uploadArchive(server: TestServer, token: string, bytes: Buffer, lang = 'en') {
  const boundary = '----ksp-test-boundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.kspb"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await server.app.inject({
    method: 'POST',
    url: api.backup.upload.path,
    headers: { token, 'content-type': `multipart/form-data; boundary=${boundary}`, 'accept-language': lang },
    payload: body,
  });
  return res.json<{ code: number; msg: string; data: { id: string; sha256: string; scope: string } }>();
}

export async function downloadKey(server: TestServer, token: string, id: string, password: string) {
  const res = await call(server, api.backupKey.download, {
    token,
    body: { id, password, hint: 'the usual' },
  });
  expect(res.code, res.msg).toBe(0);
  return res.data as unknown as string;
}

/** Waits (polling, no timing assertion) until the backup is no longer backing up. */
export async function finished(server: TestServer, token: string, id: string) {
  for (;;) {
    const d = await call(server, api.backup.detail, { token, query: { id } });
    expect(d.code, d.msg).toBe(0);
    if (d.data.status !== 'backing_up') return d.data;
    await new Promise((r) => setTimeout(r, 20));
  }
}
