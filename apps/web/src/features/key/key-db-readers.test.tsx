import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { api } from '@ksp/contracts';
import { envelope } from '../../test-fixtures';
import { renderPage } from '../../test-render';
import { answerWith, inLanguageEachTest, signedInEachTest } from '../../test-session';
import KeyDetailPage from './key-detail-page';
import { keyRow } from './key-test-fixtures';

const key = keyRow({ name: 'orders-master' });
const PATH = `/console/key/detail/${key.id}`;

signedInEachTest({ permissions: ['key:read', 'key:write'] });

function serve() {
  return answerWith((config) => {
    switch (config.url) {
      case api.key.detail.path:
        return envelope(key);
      case api.key.versions.path:
        return envelope([]);
      case api.key.audit.path:
        return envelope({ data: [], total: 0 });
      case api.tdeDatabase.keyReaders.path:
        return envelope([
          {
            client_id: '0190d5a4-0000-7000-8000-0000000000c1',
            client_name: 'orders-db',
            db_key_id: 1,
            reads: 1234,
            last_read_at: '2026-01-02T03:04:05.000Z',
            last_version: 3,
          },
          {
            client_id: '0190d5a4-0000-7000-8000-0000000000c2',
            client_name: 'reports-db',
            db_key_id: 42,
            reads: 0,
            last_read_at: null,
            last_version: null,
          },
        ]);
      default:
        return envelope(null, 4040, 'Not served');
    }
  });
}

describe.each(['en', 'zh'] as const)('key detail › database reads (%s)', (lang) => {
  inLanguageEachTest(lang);
  const en = lang === 'en';

  it('lists the database clients that may read the key, with their reads', async () => {
    const seen = serve();
    renderPage(PATH, '/console/key/detail/:id', <KeyDetailPage />);
    const section = await screen.findByTestId('key-db-reads');
    expect(section.textContent).toContain(en ? 'Database reads' : '数据库读取');
    const orders = within(section).getByTestId('key-db-read-orders-db-1');
    expect(orders.textContent).toContain('1,234');
    expect(orders.textContent).toContain('2026-01-02');
    expect(within(section).getByTestId('key-db-read-reports-db-42').textContent).toContain(
      en ? 'Never' : '从未',
    );
    expect(
      seen.find((c) => c.url === api.tdeDatabase.keyReaders.path)?.params as Record<string, unknown>,
    ).toEqual({ key_id: key.id });
  });
});
