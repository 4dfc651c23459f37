import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Space, Tag, Typography } from 'antd';
import type { DbClientDetail } from '@ksp/contracts';
import { fetchDbClient, tdeDatabaseKeys } from '../../api/tde-database';
import { formatDateTime } from '../../components/date-time';
import { DetailDrawer } from '../../components/detail-drawer';
import { useT } from '../../i18n/i18n';
import { DbGrants } from './db-grants';
import { DbClientState, DbTokenHint } from './db-client-cells';

/** One database client: its fields, then the keys granted to it (`api.tdeDatabase.detail`). */
export function DbClientDrawer({
  id,
  onChanged,
  onClose,
}: {
  id: string;
  onChanged: () => Promise<unknown>;
  onClose: () => void;
}) {
  const t = useT();
  const detail = useQuery({ queryKey: tdeDatabaseKeys.detail(id), queryFn: () => fetchDbClient(id) });
  const none = <Typography.Text type="secondary">{t('tdeDatabase:none')}</Typography.Text>;
  const item = (key: string, label: string, children: ReactNode) => ({
    key,
    label,
    children: <span data-testid={`db-detail-${key}`}>{children}</span>,
  });
  return (
    <DetailDrawer<DbClientDetail>
      record={detail.data}
      testId="db-detail"
      title={(client) => t('tdeDatabase:detail.title', { name: client.name })}
      onClose={onClose}
      items={(client) => [
        item('name', t('tdeDatabase:fields.name'), client.name),
        item('description', t('tdeDatabase:fields.description'), client.description || none),
        item('state', t('tdeDatabase:fields.state'), <DbClientState row={client} />),
        item('token', t('tdeDatabase:fields.token'), <DbTokenHint row={client} />),
        item('tokenIssued', t('tdeDatabase:fields.tokenIssued'), formatDateTime(client.token_issued_at)),
        item(
          'ipWhitelist',
          t('tdeDatabase:fields.ipWhitelist'),
          client.ip_whitelist.length > 0 ? (
            <Space size={[4, 4]} wrap>
              {client.ip_whitelist.map((rule) => (
                <Tag key={rule}>{rule}</Tag>
              ))}
            </Space>
          ) : (
            t('tdeDatabase:anyAddress')
          ),
        ),
        item(
          'lastRead',
          t('tdeDatabase:fields.lastRead'),
          client.last_read_at ? formatDateTime(client.last_read_at) : t('tdeDatabase:never'),
        ),
        item('lastReadIp', t('tdeDatabase:fields.lastReadIp'), client.last_read_ip || none),
        item('created', t('tdeDatabase:fields.created'), formatDateTime(client.created_at)),
      ]}
    >
      {(client) => <DbGrants client={client} onChanged={onChanged} />}
    </DetailDrawer>
  );
}
