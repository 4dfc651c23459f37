import { useQueryClient } from '@tanstack/react-query';
import { Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, type ServerRow } from '@ksp/contracts';
import { deleteServers, listServers, serverKeys } from '../../api/ssh-server';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { addServerPath, serverDetailPath } from './server-paths';

/** SMS › servers: SSH targets with their pinned host key and the last rotation of their root password. */
export default function ServerListPage() {
  const t = useT();
  const kit = useColumnKit<ServerRow>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.sshServer.create);
  const refresh = () => queryClient.invalidateQueries({ queryKey: serverKeys.all });

  const remove = (row: ServerRow) =>
    confirmDelete({
      title: t('sshServer:deleteConfirm', { name: row.name }),
      content: t('sshServer:deleteContent'),
      remove: () => deleteServers([row.id]),
      refresh,
      testId: 'server-delete-ok',
    });

  const columns: ColumnsType<ServerRow> = [
    kit.name(t('sshServer:fields.name'), 'name', (name: string, row) => (
      <Typography.Link
        strong
        onClick={() => void navigate(serverDetailPath(row.id))}
        data-testid={`server-open-${name}`}
      >
        {name}
      </Typography.Link>
    )),
    {
      title: t('sshServer:fields.host'),
      dataIndex: 'host',
      render: (host: string, row) => `${host}:${row.port}`,
    },
    { title: t('sshServer:fields.account'), dataIndex: 'account' },
    {
      title: t('sshServer:fields.credential'),
      dataIndex: 'credential_name',
      render: (name: string | null) => name ?? <Tag color="red">{t('sshServer:noCredential')}</Tag>,
    },
    {
      title: t('sshServer:fields.fingerprint'),
      dataIndex: 'host_key_fingerprint',
      render: (fp: string | null) =>
        fp ? (
          <Typography.Text code>{fp.slice(0, 20)}…</Typography.Text>
        ) : (
          <Tag color="orange">{t('sshServer:notPinned')}</Tag>
        ),
    },
    {
      title: t('sshServer:fields.lastRotation'),
      dataIndex: 'last_rotation_at',
      render: (at: string | null, row) =>
        at ? (
          <>
            {formatDateTime(at)}{' '}
            {row.last_rotation_result && (
              <Tag color={row.last_rotation_result === 'success' ? 'green' : 'red'}>
                {t(`sshServer:results.${row.last_rotation_result}`)}
              </Tag>
            )}
          </>
        ) : (
          t('sshServer:never')
        ),
    },
    {
      title: t('sshServer:fields.nextRotation'),
      dataIndex: 'next_rotation_at',
      render: (at: string | null) => (at ? formatDateTime(at) : t('sshServer:disabled')),
    },
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('sshServer:details'),
            onClick: () => void navigate(serverDetailPath(row.id)),
            testId: `server-details-${row.name}`,
          },
          ...(canWrite
            ? [
                {
                  label: t('common:actions.delete'),
                  onClick: () => remove(row),
                  testId: `server-delete-${row.name}`,
                  danger: true,
                },
              ]
            : []),
        ]}
      />
    )),
  ];

  return (
    <ListPage<ServerRow>
      queryKey={serverKeys.list}
      testId="server"
      fetchPage={({ page, page_size, filters }) => listServers({ page, page_size, name: filters.name })}
      rowKey="id"
      rowTestId={(row) => `server-row-${row.name}`}
      columns={columns}
      filters={[{ name: 'name', label: t('sshServer:fields.name') }]}
      toolbar={canWrite && <ListAddButton onClick={() => void navigate(addServerPath)} testId="server-add" />}
      onDelete={canWrite ? (ids) => deleteServers(ids) : undefined}
    />
  );
}
