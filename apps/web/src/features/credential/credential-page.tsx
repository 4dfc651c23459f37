import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Descriptions, Drawer, Flex, Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import {
  api,
  credentialTypes,
  type CredentialRow,
  type CredentialType,
  type CredentialVersion,
} from '@ksp/contracts';
import {
  addCredentialVersion,
  createCredential,
  credentialKeys,
  deleteCredentials,
  fetchCredential,
  listCredentials,
  updateCredential,
} from '../../api/credential';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { CreateModal, EditModal, NewVersionModal } from './credential-forms';
import { RevealModal, type RevealTarget } from './reveal-modal';

/** The drawer of one credential: its metadata and versions, each version revealable. */
function DetailDrawer({
  id,
  onClose,
  onEdit,
  onNewVersion,
  onReveal,
  onDelete,
}: {
  id: string | null;
  onClose: () => void;
  onEdit: (row: CredentialRow) => void;
  onNewVersion: (row: CredentialRow) => void;
  onReveal: (target: RevealTarget) => void;
  onDelete: (row: CredentialRow) => void;
}) {
  const t = useT();
  const canWrite = useCanCall(api.credential.update);
  const canReveal = useCanCall(api.credential.reveal);
  const detail = useQuery({
    queryKey: credentialKeys.detail(id ?? ''),
    queryFn: () => fetchCredential(id ?? ''),
    enabled: id !== null,
  });
  const row = detail.data;
  const versionColumns: ColumnsType<CredentialVersion> = [
    {
      title: t('credential:fields.version'),
      dataIndex: 'version',
      render: (v: number, r) => (
        <Space>
          {v}
          {r.current && <Tag color="blue">{t('credential:current')}</Tag>}
        </Space>
      ),
    },
    { title: t('credential:fields.createdBy'), dataIndex: 'created_by' },
    {
      title: t('credential:fields.createdAt'),
      dataIndex: 'created_at',
      render: (v: string) => formatDateTime(v),
    },
  ];
  if (canReveal && row)
    versionColumns.push({
      title: t('common:actions.operations'),
      key: 'reveal',
      render: (_v, r) => (
        <Button
          size="small"
          onClick={() => onReveal({ id: row.id, name: row.name, version: r.version })}
          data-testid={`cred-reveal-v${r.version}`}
        >
          {t('credential:reveal')}
        </Button>
      ),
    });
  return (
    <Drawer
      open={id !== null}
      onClose={onClose}
      size="large"
      title={row ? t('credential:detailTitle', { name: row.name }) : ''}
      destroyOnHidden
      data-testid="cred-drawer"
      extra={
        row &&
        canWrite && (
          <Space>
            <Button onClick={() => onEdit(row)} data-testid="cred-edit">
              {t('common:actions.edit')}
            </Button>
            <Button type="primary" onClick={() => onNewVersion(row)} data-testid="cred-new-version">
              {t('credential:newVersion')}
            </Button>
            <Button danger onClick={() => onDelete(row)} data-testid="cred-delete">
              {t('common:actions.delete')}
            </Button>
          </Space>
        )
      }
    >
      {row && (
        <Flex vertical gap={24}>
          <Descriptions column={1} bordered size="small">
            <Descriptions.Item label={t('credential:fields.type')}>
              {t(`credential:types.${row.type}`)}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.description')}>
              {row.description || '-'}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.tags')}>
              {row.tags.length ? row.tags.map((tag) => <Tag key={tag}>{tag}</Tag>) : '-'}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.expiresAt')}>
              {row.expires_at ? formatDateTime(row.expires_at) : t('credential:never')}
              {row.expired && (
                <Tag color="red" style={{ marginLeft: 8 }}>
                  {t('credential:expired')}
                </Tag>
              )}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.rotationDays')}>
              {row.rotation_days ?? t('credential:noRotation')}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.server')}>
              {row.server_id ?? t('credential:noServer')}
            </Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.createdBy')}>{row.created_by}</Descriptions.Item>
            <Descriptions.Item label={t('credential:fields.updatedAt')}>
              {formatDateTime(row.updated_at)}
            </Descriptions.Item>
          </Descriptions>
          <div>
            <Typography.Title level={5}>{t('credential:versions')}</Typography.Title>
            <Table<CredentialVersion>
              rowKey="version"
              size="small"
              pagination={false}
              columns={versionColumns}
              dataSource={row.versions}
              data-testid="cred-versions"
            />
          </div>
        </Flex>
      )}
    </Drawer>
  );
}

/** SMS › credentials: sealed secrets with versions; a value shows only after the password again. */
export default function CredentialPage() {
  const t = useT();
  const kit = useColumnKit<CredentialRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.credential.create);
  const [creating, setCreating] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const [editing, setEditing] = useState<CredentialRow | null>(null);
  const [versioning, setVersioning] = useState<CredentialRow | null>(null);
  const [revealing, setRevealing] = useState<RevealTarget | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: credentialKeys.all });
  const typeOptions = credentialTypes.map((v) => ({ value: v, label: t(`credential:types.${v}`) }));

  const remove = (row: CredentialRow) =>
    confirmDelete({
      title: t('credential:deleteConfirm', { name: row.name }),
      content: t('credential:deleteContent'),
      remove: () => deleteCredentials([row.id]),
      onDeleted: () => setOpenId(null),
      refresh,
      testId: 'cred-delete-ok',
    });

  const columns: ColumnsType<CredentialRow> = [
    kit.name(t('credential:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => setOpenId(row.id)} data-testid={`cred-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    {
      title: t('credential:fields.type'),
      dataIndex: 'type',
      render: (type: CredentialType) => <Tag>{t(`credential:types.${type}`)}</Tag>,
    },
    {
      title: t('credential:fields.tags'),
      dataIndex: 'tags',
      render: (tags: string[]) => tags.map((tag) => <Tag key={tag}>{tag}</Tag>),
    },
    { title: t('credential:fields.version'), dataIndex: 'current_version', align: 'right' },
    {
      title: t('credential:fields.expiresAt'),
      dataIndex: 'expires_at',
      render: (at: string | null, row) =>
        at ? (
          <Space>
            {formatDateTime(at)}
            {row.expired && <Tag color="red">{t('credential:expired')}</Tag>}
          </Space>
        ) : (
          t('credential:never')
        ),
    },
    kit.time(t('credential:fields.updatedAt'), 'updated_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('credential:details'),
            onClick: () => setOpenId(row.id),
            testId: `cred-details-${row.name}`,
          },
          ...(canWrite
            ? [
                {
                  label: t('common:actions.delete'),
                  onClick: () => remove(row),
                  testId: `cred-delete-${row.name}`,
                  danger: true,
                },
              ]
            : []),
        ]}
      />
    )),
  ];

  return (
    <>
      <ListPage<CredentialRow>
        queryKey={credentialKeys.list}
        testId="cred"
        fetchPage={({ page, page_size, filters }) =>
          listCredentials({
            page,
            page_size,
            name: filters.name,
            tag: filters.tag,
            type: credentialTypes.find((type) => type === filters.type),
          })
        }
        rowKey="id"
        rowTestId={(row) => `cred-row-${row.name}`}
        columns={columns}
        filters={[
          { name: 'name', label: t('credential:fields.name') },
          { name: 'type', label: t('credential:fields.type'), options: typeOptions },
          { name: 'tag', label: t('credential:fields.tags') },
        ]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="cred-add" />}
        onDelete={canWrite ? (ids) => deleteCredentials(ids) : undefined}
      />
      <CreateModal
        open={creating}
        onClose={() => setCreating(false)}
        onCreate={async (body) => {
          const row = await createCredential(body);
          void message.success(t('credential:created', { name: row.name }));
          await refresh();
        }}
      />
      <DetailDrawer
        id={openId}
        onClose={() => setOpenId(null)}
        onEdit={setEditing}
        onNewVersion={setVersioning}
        onReveal={setRevealing}
        onDelete={remove}
      />
      <EditModal
        row={editing}
        onClose={() => setEditing(null)}
        onSave={async (body) => {
          if (!editing) return;
          await updateCredential({ id: editing.id, ...body });
          void message.success(t('common:feedback.saved'));
          await refresh();
        }}
      />
      <NewVersionModal
        row={versioning}
        onClose={() => setVersioning(null)}
        onSave={async (value) => {
          if (!versioning) return;
          const row = await addCredentialVersion(versioning.id, value);
          void message.success(t('credential:versionAdded', { version: row.current_version }));
          await refresh();
        }}
      />
      <RevealModal target={revealing} onClose={() => setRevealing(null)} />
    </>
  );
}
