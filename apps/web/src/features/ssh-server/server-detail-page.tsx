import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Flex,
  Form,
  Modal,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate, useParams } from 'react-router';
import { api, type ServerRotation, type ServerRow } from '@ksp/contracts';
import { ApiError } from '../../api/api-error';
import {
  confirmFingerprint,
  deleteServers,
  fetchFingerprint,
  fetchServer,
  listRotations,
  rotateServer,
  serverKeys,
  testServer,
  updateServer,
} from '../../api/ssh-server';
import { useConfirmDelete } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { TerminalRoleTags } from './terminal-roles';
import { ServerFields, toBody, type ServerFormValues } from './server-fields';
import { serverListPath, terminalPath } from './server-paths';
import { ServerSessions } from './server-sessions';

const message$ = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

function formValues(row: ServerRow): ServerFormValues {
  return {
    name: row.name,
    description: row.description,
    host: row.host,
    port: row.port,
    os: row.os,
    account: row.account,
    auth_type: row.auth_type,
    credential_id: row.credential_id ?? '',
    rotation_enabled: row.rotation_enabled,
    rotation_days: row.rotation_days,
    rotation_hour: row.rotation_hour,
    rotation_length: row.rotation_length,
    charset: (['lower', 'upper', 'digits', 'symbols'] as const).filter((c) => row[`rotation_${c}`]),
    terminal_users: row.terminal_users,
    terminal_roles: row.terminal_roles,
  };
}

/** The edit dialog: the add form's fields; a new host or port forgets the pinned key. */
function EditModal({ row, onClose }: { row: ServerRow | null; onClose: () => void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<ServerFormValues>();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (values: ServerFormValues) => {
    if (!row) return;
    setBusy(true);
    setError(null);
    try {
      await updateServer({ id: row.id, ...toBody(values) });
      await queryClient.invalidateQueries({ queryKey: serverKeys.all });
      onClose();
    } catch (err) {
      setError(message$(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={row !== null}
      title={t('sshServer:edit')}
      width={880}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common:actions.save')}
      confirmLoading={busy}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'server-edit-ok' }}
    >
      {row && (
        <Form<ServerFormValues>
          form={form}
          layout="vertical"
          initialValues={formValues(row)}
          onFinish={(v) => void save(v)}
        >
          <ServerFields />
          {error && <Alert type="error" showIcon message={error} />}
        </Form>
      )}
    </Modal>
  );
}

/** SMS › server details: settings, pinned host key, connection test, rotate now and the rotation history. */
export default function ServerDetailPage() {
  const t = useT();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { modal } = App.useApp();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.sshServer.update);
  const canTerminal = useCanCall(api.sshServer.terminalTicket);
  const [editing, setEditing] = useState<ServerRow | null>(null);
  const [outcome, setOutcome] = useState<{ type: 'success' | 'error' | 'warning'; text: string } | null>(
    null,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const detail = useQuery({ queryKey: serverKeys.detail(id), queryFn: () => fetchServer(id) });
  const rotations = useQuery({
    queryKey: [...serverKeys.rotations(id), page],
    queryFn: () => listRotations({ id, page, page_size: 10 }),
  });
  const row = detail.data;
  const refresh = () => queryClient.invalidateQueries({ queryKey: serverKeys.all });

  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(what);
    setOutcome(null);
    try {
      await action();
    } catch (err) {
      setOutcome({ type: 'error', text: message$(err) });
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  const test = () =>
    run('test', async () => {
      const r = await testServer(id);
      setOutcome({ type: 'success', text: t('sshServer:testOk', { output: r.output }) });
    });

  const pin = () =>
    run('fingerprint', async () => {
      const key = await fetchFingerprint({ id, port: row?.port ?? 22 });
      if (key.pinned === key.fingerprint) {
        setOutcome({ type: 'success', text: t('sshServer:pinned') });
        return;
      }
      const changed = key.pinned !== null;
      modal.confirm({
        title: changed
          ? t('sshServer:changedWarning')
          : t('sshServer:confirmQuestion', { fingerprint: key.fingerprint }),
        content: (
          <Flex vertical gap={8}>
            {changed && (
              <Typography.Text type="danger" style={{ wordBreak: 'break-all' }}>
                {key.pinned} → {key.fingerprint}
              </Typography.Text>
            )}
            <Typography.Text style={{ wordBreak: 'break-all' }}>
              {t('sshServer:fetched', { type: key.key_type, fingerprint: key.fingerprint })}
            </Typography.Text>
            <Typography.Text type="secondary">{t('sshServer:confirmContent')}</Typography.Text>
          </Flex>
        ),
        okText: t('sshServer:confirmFingerprint'),
        okButtonProps: { danger: changed, 'data-testid': 'server-confirm-fp-ok' },
        onOk: () =>
          run('fingerprint', async () => {
            await confirmFingerprint(id, key.fingerprint);
            setOutcome({ type: 'success', text: t('sshServer:pinned') });
          }),
      });
    });

  const rotate = () =>
    row &&
    modal.confirm({
      title: t('sshServer:rotateConfirm', { name: row.name, account: row.account }),
      content: t('sshServer:rotateContent'),
      okButtonProps: { 'data-testid': 'server-rotate-ok' },
      onOk: () =>
        run('rotate', async () => {
          setPage(1);
          const r = await rotateServer(id);
          setOutcome({ type: 'success', text: t('sshServer:rotated', { version: r.version ?? 0 }) });
        }),
    });

  const remove = () =>
    row &&
    confirmDelete({
      title: t('sshServer:deleteConfirm', { name: row.name }),
      content: t('sshServer:deleteContent'),
      remove: () => deleteServers([row.id]),
      onDeleted: () => void navigate(serverListPath),
      refresh,
      testId: 'server-delete-ok',
    });

  const historyColumns: ColumnsType<ServerRotation> = [
    { title: t('sshServer:historyColumns.at'), dataIndex: 'at', render: (v: string) => formatDateTime(v) },
    {
      title: t('sshServer:historyColumns.trigger'),
      dataIndex: 'trigger',
      render: (v: ServerRotation['trigger']) => t(`sshServer:triggers.${v}`),
    },
    { title: t('sshServer:historyColumns.by'), dataIndex: 'by' },
    {
      title: t('sshServer:historyColumns.result'),
      dataIndex: 'result',
      render: (v: ServerRotation['result']) => (
        <Tag color={v === 'success' ? 'green' : 'red'}>{t(`sshServer:results.${v}`)}</Tag>
      ),
    },
    {
      title: t('sshServer:historyColumns.version'),
      dataIndex: 'version',
      render: (v: number | null) => v ?? '-',
    },
    {
      title: t('sshServer:historyColumns.error'),
      dataIndex: 'error',
      render: (v: string | null) => (v ? <Typography.Text type="danger">{v}</Typography.Text> : '-'),
    },
  ];

  if (!row) return <Card loading={detail.isLoading} />;
  const charset = (['lower', 'upper', 'digits', 'symbols'] as const).filter((c) => row[`rotation_${c}`]);
  return (
    <Flex vertical gap={16}>
      <Flex wrap gap={8} justify="space-between" align="center">
        <Space wrap>
          <Button onClick={() => void navigate(serverListPath)}>{t('sshServer:back')}</Button>
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="server-title">
            {t('sshServer:detailTitle', { name: row.name })}
          </Typography.Title>
        </Space>
        <Space wrap>
          {canTerminal && (
            <Button
              href={terminalPath(row.id)}
              target="_blank"
              rel="noopener"
              data-testid="server-open-terminal"
            >
              {t('sshServer:openTerminal')}
            </Button>
          )}
          {canWrite && (
            <>
              <Button onClick={() => void test()} loading={busy === 'test'} data-testid="server-test">
                {t('sshServer:test')}
              </Button>
              <Button
                onClick={() => void pin()}
                loading={busy === 'fingerprint'}
                data-testid="server-fetch-fp"
              >
                {t('sshServer:fetchFingerprint')}
              </Button>
              <Button
                type="primary"
                onClick={() => void rotate()}
                loading={busy === 'rotate'}
                disabled={row.auth_type !== 'password'}
                data-testid="server-rotate"
              >
                {t('sshServer:rotateNow')}
              </Button>
              <Button onClick={() => setEditing(row)} data-testid="server-edit">
                {t('sshServer:edit')}
              </Button>
              <Button danger onClick={() => void remove()} data-testid="server-delete">
                {t('common:actions.delete')}
              </Button>
            </>
          )}
        </Space>
      </Flex>
      {outcome && (
        <Alert
          type={outcome.type}
          showIcon
          closable
          onClose={() => setOutcome(null)}
          message={<span style={{ wordBreak: 'break-word' }}>{outcome.text}</span>}
          data-testid="server-outcome"
        />
      )}
      {!row.host_key_fingerprint && <Alert type="warning" showIcon message={t('sshServer:confirmLater')} />}
      <Card title={t('sshServer:connection')}>
        <Descriptions bordered size="small" column={{ xs: 1, sm: 1, md: 1, lg: 2 }}>
          <Descriptions.Item
            label={t('sshServer:fields.host')}
          >{`${row.host}:${row.port}`}</Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.os')}>
            {t(`sshServer:os.${row.os}`)} · SSH
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.account')}>{row.account}</Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.authType')}>
            {t(`sshServer:authTypes.${row.auth_type}`)}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.credential')}>
            {row.credential_name ?? <Tag color="red">{t('sshServer:noCredential')}</Tag>}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.fingerprint')}>
            {row.host_key_fingerprint ? (
              <Typography.Text code style={{ wordBreak: 'break-all' }} data-testid="server-pinned-fp">
                {row.host_key_type} {row.host_key_fingerprint}
              </Typography.Text>
            ) : (
              <Tag color="orange">{t('sshServer:notPinned')}</Tag>
            )}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.description')}>
            {row.description || '-'}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.updatedAt')}>
            {formatDateTime(row.updated_at)}
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title={t('sshServer:rotation')}>
        <Descriptions bordered size="small" column={{ xs: 1, sm: 1, md: 1, lg: 2 }}>
          <Descriptions.Item label={t('sshServer:fields.rotationEnabled')}>
            {row.rotation_enabled
              ? `${row.rotation_days} d · ${String(row.rotation_hour).padStart(2, '0')}:00 UTC`
              : t('sshServer:disabled')}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.nextRotation')}>
            {row.next_rotation_at ? formatDateTime(row.next_rotation_at) : '-'}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.lastRotation')}>
            {row.last_rotation_at ? formatDateTime(row.last_rotation_at) : t('sshServer:never')}{' '}
            {row.last_rotation_result && (
              <Tag
                color={row.last_rotation_result === 'success' ? 'green' : 'red'}
                data-testid="server-last-result"
              >
                {t(`sshServer:results.${row.last_rotation_result}`)}
              </Tag>
            )}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.charset')}>
            {row.rotation_length} · {charset.map((c) => t(`sshServer:charset.${c}`)).join(' ')}
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title={t('sshServer:terminal')}>
        <Descriptions bordered size="small" column={1}>
          <Descriptions.Item label={t('sshServer:fields.terminalUsers')}>
            {row.terminal_users.length ? row.terminal_users.map((u) => <Tag key={u}>{u}</Tag>) : '-'}
          </Descriptions.Item>
          <Descriptions.Item label={t('sshServer:fields.terminalRoles')}>
            <TerminalRoleTags ids={row.terminal_roles} />
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <Card title={t('sshServer:history')}>
        <Table<ServerRotation>
          rowKey="id"
          size="small"
          scroll={{ x: 720 }}
          loading={rotations.isLoading}
          columns={historyColumns}
          dataSource={rotations.data?.data ?? []}
          pagination={{ current: page, pageSize: 10, total: rotations.data?.total ?? 0, onChange: setPage }}
          data-testid="server-history"
        />
      </Card>
      <ServerSessions serverId={row.id} serverName={row.name} />
      <EditModal row={editing} onClose={() => setEditing(null)} />
    </Flex>
  );
}
