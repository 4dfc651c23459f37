import { useCallback, useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Space, Tag, Tooltip, Typography, Upload } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { api, type BackupRow } from '@ksp/contracts';
import {
  backupKeys,
  deleteBackups,
  downloadBackup,
  fetchBackup,
  fetchBackups,
  restoreBackup,
  uploadBackup,
} from '../../api/backup';
import { clearSession } from '../../api/session';
import { StatusTag } from '../../components/columns';
import { useConfirm } from '../../components/confirm-delete';
import { formatDateTime } from '../../components/date-time';
import { ListAddButton, ListPage } from '../../components/list-page';
import { formatThousands } from '../../components/number-format';
import { useCanCall } from '../../components/permissions';
import { saveBlob } from '../../components/save-blob';
import { useT } from '../../i18n/i18n';
import { serverText } from '../../i18n/server-labels';
import { CreateModal } from './backup-create-modal';

const statusColors = { backing_up: 'processing', completed: 'green', failed: 'red' } as const;
const restoreColors = { restoring: 'processing', restored: 'green', failed: 'red' } as const;
/** Follows a backup being made until it ends, then refreshes the list. */
function usePending(id: string | null, onEnd: () => void) {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: [...backupKeys.backups, 'detail', id],
    queryFn: () => fetchBackup(id!),
    enabled: id !== null,
    refetchInterval: (query) =>
      query.state.data?.status === 'backing_up' || !query.state.data ? 1000 : false,
  });
  const status = detail.data?.status;
  useEffect(() => {
    if (!id || !status || status === 'backing_up') return;
    if (status === 'completed') void message.success(t('backup:backups.done'));
    else void message.error(t('backup:backups.failed', { error: detail.data?.error ?? '' }));
    void queryClient.invalidateQueries({ queryKey: backupKeys.backups });
    onEnd();
  }, [id, status, detail.data?.error, message, t, queryClient, onEnd]);
}

/** Settings › backups: back up, follow the progress, download, upload, restore, delete. */
export default function BackupPage() {
  const t = useT();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const confirm = useConfirm();
  const canWrite = useCanCall(api.backup.create);
  const [dialog, setDialog] = useState(false);
  const [pending, setPending] = useState<string | null>(null);
  const endPending = useCallback(() => setPending(null), []);
  usePending(pending, endPending);

  const onRestore = (row: BackupRow) =>
    confirm({
      title: t('backup:backups.restoreConfirm', { at: formatDateTime(row.created_at) }),
      content:
        row.scope === 'system'
          ? t('backup:backups.systemRestoreContent')
          : t('backup:backups.restoreContent', { scope: t(`backup:scopes.${row.scope}`) }),
      okText: t('backup:backups.restore'),
      danger: true,
      testId: 'backup-restore-ok',
      onOk: async () => {
        try {
          await restoreBackup(row.id);
        } catch {
          // The API client showed the server's reason; nothing was changed.
          await queryClient.invalidateQueries({ queryKey: backupKeys.backups });
          return;
        }
        if (row.scope === 'system') {
          void message.success(t('backup:backups.signInAgain'));
          clearSession();
          return;
        }
        void message.success(t('backup:backups.restored'));
        await queryClient.invalidateQueries();
      },
    });

  const onDownload = async (row: BackupRow) => {
    const file = await downloadBackup(row.id);
    saveBlob(file.filename ?? `ksp-backup-${row.id}.kspb`, file.blob);
  };

  const onUpload = async (file: File) => {
    try {
      await uploadBackup(file);
    } catch {
      return; // The API client showed the server's reason.
    }
    void message.success(t('backup:backups.uploaded'));
    await queryClient.invalidateQueries({ queryKey: backupKeys.backups });
  };

  const columns: ColumnsType<BackupRow> = [
    {
      key: 'at',
      title: t('backup:backups.columns.createdAt'),
      render: (_, r) => formatDateTime(r.created_at),
    },
    {
      key: 'scope',
      title: t('backup:backups.columns.scope'),
      render: (_, r) => (
        <Space size={4}>
          {t(`backup:scopes.${r.scope}`)}
          {r.uploaded && <Tag>{t('backup:backups.uploadedTag')}</Tag>}
          {r.tied_to_hsm && <Tag color="purple">{t('backup:backups.hsmTag')}</Tag>}
        </Space>
      ),
    },
    { key: 'domain', title: t('backup:backups.columns.domain'), dataIndex: 'domain' },
    {
      key: 'description',
      title: t('backup:backups.columns.description'),
      render: (_, r) => (
        <span data-testid="backup-description-cell">{serverText(r.description, r.description_message)}</span>
      ),
    },
    {
      key: 'status',
      title: t('backup:backups.columns.status'),
      render: (_, r) => (
        <Tooltip
          title={
            [
              r.status === 'failed' ? r.error : null,
              r.node ? t('backup:backups.writtenOn', { node: r.node }) : null,
            ]
              .filter(Boolean)
              .join(' · ') || undefined
          }
        >
          <Space size={4}>
            <StatusTag
              value={r.status}
              colors={statusColors}
              labels={{
                // Queued: no node has started writing it yet (the backup job runs one at a time).
                backing_up: r.node
                  ? `${t('backup:backups.statuses.backing_up')} ${r.progress}%`
                  : t('backup:backups.statuses.queued'),
                completed: t('backup:backups.statuses.completed'),
                failed: t('backup:backups.statuses.failed'),
              }}
              testId={`backup-status-${r.id}`}
            />
          </Space>
        </Tooltip>
      ),
    },
    {
      key: 'restore',
      title: t('backup:backups.columns.restore'),
      render: (_, r) =>
        r.restore_status ? (
          <StatusTag
            value={r.restore_status}
            colors={restoreColors}
            labels={{
              restoring: t('backup:backups.restoreStatuses.restoring'),
              restored: t('backup:backups.restoreStatuses.restored'),
              failed: t('backup:backups.restoreStatuses.failed'),
            }}
            testId={`backup-restore-status-${r.id}`}
          />
        ) : null,
    },
    { key: 'size', title: t('backup:backups.columns.size'), render: (_, r) => formatThousands(r.size) },
    {
      key: 'sha256',
      title: t('backup:backups.columns.sha256'),
      width: 200,
      render: (_, r) =>
        r.sha256 ? (
          <Typography.Text
            copyable={{ text: r.sha256 }}
            ellipsis={{ tooltip: r.sha256 }}
            style={{ maxWidth: 180, fontFamily: 'monospace' }}
            data-testid={`backup-sha256-${r.id}`}
          >
            {r.sha256}
          </Typography.Text>
        ) : null,
    },
    {
      key: 'actions',
      title: t('backup:backups.columns.actions'),
      fixed: 'right',
      render: (_, r) =>
        r.status === 'completed' ? (
          <Space size={0}>
            <Button type="link" onClick={() => void onDownload(r)} data-testid={`backup-download-${r.id}`}>
              {t('backup:backups.download')}
            </Button>
            {canWrite && (
              <Button type="link" danger onClick={() => onRestore(r)} data-testid={`backup-restore-${r.id}`}>
                {t('backup:backups.restore')}
              </Button>
            )}
          </Space>
        ) : null,
    },
  ];

  return (
    <Flex vertical gap={16}>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        {t('backup:backups.hint')}
      </Typography.Paragraph>
      <ListPage<BackupRow>
        title={t('backup:backups.title')}
        queryKey={backupKeys.backups}
        fetchPage={({ page, page_size }) => fetchBackups({ page, page_size })}
        rowKey="id"
        columns={columns}
        toolbar={
          canWrite && (
            <Space>
              <ListAddButton onClick={() => setDialog(true)} testId="backup-add" />
              <Upload
                accept=".kspb"
                maxCount={1}
                showUploadList={false}
                beforeUpload={(file) => {
                  void onUpload(file);
                  return false;
                }}
              >
                <Button data-testid="backup-upload">{t('backup:backups.upload')}</Button>
              </Upload>
            </Space>
          )
        }
        onDelete={canWrite ? (ids) => deleteBackups(ids) : undefined}
        testId="backup"
        rowTestId={(r) => `backup-row-${r.id}`}
      />
      {dialog && <CreateModal onClose={() => setDialog(false)} onStarted={setPending} />}
    </Flex>
  );
}
