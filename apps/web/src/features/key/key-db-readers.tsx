import type { HTMLAttributes } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, consoleAreas, type DbKeyReader } from '@ksp/contracts';
import { subConsoleArea } from '../../api/parent-window';
import { fetchKeyReaders, tdeDatabaseKeys } from '../../api/tde-database';
import { formatDateTime } from '../../components/date-time';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import type { KeyRow } from '../../api/key';

/** Databases read AES-256 keys only (docs/tde-database.md): no other key can have readers. */
const READABLE_ALGORITHM = 'AES-256';

/** Whether this window's token is one the call accepts (a sub-console window holds its own kind). */
function tokenAccepted(call: { tokens?: readonly string[] }): boolean {
  const area = subConsoleArea();
  const kind = area ? consoleAreas[area].token : 'session';
  return (call.tokens ?? ['session']).includes(kind);
}

/**
 * The key detail's "Database reads": the TDE database clients that may read this key, under
 * which key id, and how often they did (`api.tdeDatabase.keyReaders`). Shown only when there
 * are some.
 */
export function KeyDbReaders({ row }: { row: Pick<KeyRow, 'id' | 'algorithm'> }) {
  const t = useT();
  const call = api.tdeDatabase.keyReaders;
  const enabled = useCanCall(call) && tokenAccepted(call) && row.algorithm === READABLE_ALGORITHM;
  const readers = useQuery({
    queryKey: tdeDatabaseKeys.keyReaders(row.id),
    queryFn: () => fetchKeyReaders(row.id, { silent: true }),
    enabled,
    retry: false,
  });
  const rows = readers.data ?? [];
  if (!enabled || rows.length === 0) return null;

  const columns: ColumnsType<DbKeyReader> = [
    { title: t('keys:dbReads.client'), dataIndex: 'client_name' },
    { title: t('keys:dbReads.dbKeyId'), dataIndex: 'db_key_id' },
    { title: t('keys:dbReads.reads'), dataIndex: 'reads', render: (n: number) => formatThousands(n) },
    {
      title: t('keys:dbReads.lastRead'),
      dataIndex: 'last_read_at',
      render: (at: string | null) =>
        at ? (
          formatDateTime(at)
        ) : (
          <Typography.Text type="secondary">{t('keys:dbReads.never')}</Typography.Text>
        ),
    },
    {
      title: t('keys:dbReads.lastVersion'),
      dataIndex: 'last_version',
      render: (version: number | null) => version ?? '-',
    },
  ];
  return (
    <Card title={t('keys:dbReads.title')} data-testid="key-db-reads">
      <Typography.Paragraph type="secondary">{t('keys:dbReads.hint')}</Typography.Paragraph>
      <Table<DbKeyReader>
        size="small"
        rowKey={(reader) => `${reader.client_id}:${reader.db_key_id}`}
        columns={columns}
        dataSource={rows}
        pagination={false}
        scroll={{ x: 'max-content' }}
        onRow={(reader) =>
          ({
            'data-testid': `key-db-read-${reader.client_name}-${reader.db_key_id}`,
          }) as HTMLAttributes<HTMLElement>
        }
      />
    </Card>
  );
}
