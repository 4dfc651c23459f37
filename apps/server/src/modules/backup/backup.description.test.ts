import { describe, expect, it } from 'vitest';
import { describeBackup, rotationDescription } from './backup.description.js';

describe('backup descriptions the server makes', () => {
  const run = '0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';

  it("puts a key rotation's description in the reader's language, with its key and parameters", () => {
    const stored = rotationDescription('nightly', run);
    expect(describeBackup('key_rotation', stored, 'en')).toEqual({
      description: `Key rotation: task nightly, run ${run}`,
      description_message: { key: 'backup.rotationDescription', params: { task: 'nightly', run } },
    });
    expect(describeBackup('key_rotation', stored, 'zh').description).toBe(
      `密钥轮换：任务 nightly，运行 ${run}`,
    );
  });

  it('reads the English text of rows written before, a task name with commas included', () => {
    const old = `Key rotation: task a, run b, run ${run}`;
    expect(describeBackup('key_rotation', old, 'zh')).toEqual({
      description: `密钥轮换：任务 a, run b，运行 ${run}`,
      description_message: { key: 'backup.rotationDescription', params: { task: 'a, run b', run } },
    });
  });

  it("keeps what a person typed as typed, even text that reads like the server's", () => {
    for (const scope of ['system', 'domain', 'partial'] as const) {
      for (const text of [`Key rotation: task x, run ${run}`, rotationDescription('x', run)])
        expect(describeBackup(scope, text, 'zh')).toEqual({ description: text, description_message: null });
    }
    // An archive made elsewhere whose description is some other message: shown as it is.
    const other = JSON.stringify({ key: 'backup.notFound', params: { id: 'x' } });
    expect(describeBackup('key_rotation', other, 'zh')).toEqual({
      description: other,
      description_message: null,
    });
  });
});
