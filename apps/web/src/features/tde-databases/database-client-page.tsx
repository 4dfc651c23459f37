import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, type DbClientRow } from '@ksp/contracts';
import {
  deleteDbClient,
  regenerateDbToken,
  revokeDbToken,
  listDbClients,
  tdeDatabaseKeys,
  updateDbClient,
} from '../../api/tde-database';
import { EllipsisText, RowActions, useColumnKit, withWidths } from '../../components/columns';
import { useConfirm, useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { DbClientState, DbTokenHint } from './db-client-cells';
import { DbClientDrawer } from './db-client-drawer';
import { CreateDbClientModal, EditDbClientModal } from './db-client-forms';
import { DbEndpointCard } from './db-endpoint-card';
import { DbTokenModal, type IssuedToken } from './db-token-modal';

/**
 * TDE › Database clients (docs/tde-database.md): the key endpoint databases read from, then the
 * domain's database clients, each with its access token and the keys granted to it.
 */
export default function DatabaseClientPage() {
  const t = useT();
  const kit = useColumnKit<DbClientRow>();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const confirmDelete = useConfirmDelete();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.tdeDatabase.create);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<DbClientRow | null>(null);
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: tdeDatabaseKeys.all });

  /** Runs a change; a refusal was already shown by the API client. The list is read again either way. */
  const change = async (work: () => Promise<unknown>, done?: string) => {
    try {
      await work();
      if (done) void message.success(done);
    } catch {
      // The API client showed the server's reason.
    }
    await refresh();
  };

  const disable = (row: DbClientRow) =>
    confirm({
      title: t('tdeDatabase:disable.title', { name: row.name }),
      content: t('tdeDatabase:disable.content'),
      okText: t('tdeDatabase:actions.disable'),
      danger: true,
      testId: 'db-confirm-disable',
      onOk: () =>
        change(
          () => updateDbClient({ id: row.id, enabled: false }),
          t('tdeDatabase:disable.done', { name: row.name }),
        ),
    });

  const enable = (row: DbClientRow) =>
    void change(
      () => updateDbClient({ id: row.id, enabled: true }),
      t('tdeDatabase:enable.done', { name: row.name }),
    );

  const regenerate = (row: DbClientRow) =>
    confirm({
      title: t('tdeDatabase:regenerate.title', { name: row.name }),
      content: t('tdeDatabase:regenerate.content'),
      okText: t('tdeDatabase:regenerate.ok'),
      danger: true,
      testId: 'db-confirm-regenerate',
      onOk: () =>
        change(async () => {
          const answer = await regenerateDbToken(row.id);
          setIssued({
            title: t('tdeDatabase:token.regeneratedTitle', { name: answer.client.name }),
            token: answer.token,
          });
        }),
    });

  const revoke = (row: DbClientRow) =>
    confirm({
      title: t('tdeDatabase:revoke.title', { name: row.name }),
      content: t('tdeDatabase:revoke.content'),
      okText: t('tdeDatabase:revoke.ok'),
      danger: true,
      testId: 'db-confirm-revoke',
      onOk: () => change(() => revokeDbToken(row.id), t('tdeDatabase:revoke.done', { name: row.name })),
    });

  const remove = (row: DbClientRow) =>
    confirmDelete({
      title: t('tdeDatabase:delete.title', { name: row.name }),
      content: t('tdeDatabase:delete.content'),
      remove: () => deleteDbClient(row.id),
      refresh,
      testId: 'db-confirm-delete',
    });

  const never = <Typography.Text type="secondary">{t('tdeDatabase:never')}</Typography.Text>;
  const columns: ColumnsType<DbClientRow> = [
    kit.name(t('tdeDatabase:fields.name'), 'name', (name: string, row) => (
      <Button
        type="link"
        size="small"
        style={{ padding: 0, fontWeight: 600 }}
        onClick={() => setOpenId(row.id)}
        data-testid={`db-open-${name}`}
      >
        {name}
      </Button>
    )),
    {
      title: t('tdeDatabase:fields.description'),
      dataIndex: 'description',
      ellipsis: { showTitle: false },
      render: (text: string) => <EllipsisText text={text || '-'} />,
    },
    {
      title: t('tdeDatabase:fields.state'),
      dataIndex: 'enabled',
      render: (_: boolean, row) => <DbClientState row={row} />,
    },
    {
      title: t('tdeDatabase:fields.token'),
      dataIndex: 'token_hint',
      render: (_: string | null, row) => <DbTokenHint row={row} />,
    },
    {
      title: t('tdeDatabase:fields.keys'),
      dataIndex: 'keys',
      render: (keys: number) => formatThousands(keys),
    },
    {
      title: t('tdeDatabase:fields.lastRead'),
      dataIndex: 'last_read_at',
      render: (at: string | null, row) =>
        at ? (
          <Flex vertical>
            <span>{formatDateTime(at)}</span>
            {row.last_read_ip && <Typography.Text type="secondary">{row.last_read_ip}</Typography.Text>}
          </Flex>
        ) : (
          never
        ),
    },
    kit.time(t('tdeDatabase:fields.created'), 'created_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('tdeDatabase:actions.details'),
            onClick: () => setOpenId(row.id),
            testId: `db-details-${row.name}`,
          },
          ...(canWrite
            ? [
                {
                  label: t('common:actions.edit'),
                  onClick: () => setEditing(row),
                  testId: `db-edit-${row.name}`,
                },
                {
                  label: t('tdeDatabase:actions.disable'),
                  onClick: () => disable(row),
                  show: row.enabled,
                  testId: `db-disable-${row.name}`,
                },
                {
                  label: t('tdeDatabase:actions.enable'),
                  onClick: () => enable(row),
                  show: !row.enabled,
                  testId: `db-enable-${row.name}`,
                },
                {
                  label: t('tdeDatabase:actions.regenerate'),
                  onClick: () => regenerate(row),
                  testId: `db-regenerate-${row.name}`,
                },
                {
                  label: t('tdeDatabase:actions.revoke'),
                  onClick: () => revoke(row),
                  show: row.token_hint !== null,
                  danger: true,
                  testId: `db-revoke-${row.name}`,
                },
                {
                  label: t('common:actions.delete'),
                  onClick: () => remove(row),
                  danger: true,
                  testId: `db-delete-${row.name}`,
                },
              ]
            : []),
        ]}
      />
    )),
  ];

  const sized = withWidths(columns, {
    name: 170,
    description: 180,
    enabled: 100,
    token_hint: 130,
    keys: 80,
    last_read_at: 170,
    created_at: 170,
    operations: canWrite ? 480 : 90,
  });

  return (
    <Flex vertical gap={16}>
      <DbEndpointCard />
      <ListPage<DbClientRow>
        queryKey={tdeDatabaseKeys.list}
        testId="db"
        fetchPage={({ page, page_size, filters }) => listDbClients({ page, page_size, name: filters.name })}
        rowKey="id"
        rowTestId={(row) => `db-row-${row.name}`}
        columns={sized}
        filters={[{ name: 'name', label: t('tdeDatabase:fields.name') }]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="db-add" />}
      >
        <CreateDbClientModal
          open={creating}
          onClose={() => setCreating(false)}
          onCreated={async (answer) => {
            setIssued({
              title: t('tdeDatabase:token.createdTitle', { name: answer.client.name }),
              token: answer.token,
            });
            await refresh();
          }}
        />
        <EditDbClientModal
          row={editing}
          onClose={() => setEditing(null)}
          onSaved={async () => {
            void message.success(t('common:feedback.saved'));
            await refresh();
          }}
        />
        {issued && <DbTokenModal value={issued} onClose={() => setIssued(null)} />}
        {openId && <DbClientDrawer id={openId} onChanged={refresh} onClose={() => setOpenId(null)} />}
      </ListPage>
    </Flex>
  );
}
