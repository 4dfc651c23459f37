import { lazy, Suspense, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Modal, Spin, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { ServerSession } from '@ksp/contracts';
import { fetchRecording, listSessions, serverKeys } from '../../api/ssh-server';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';

const SessionPlayer = lazy(() => import('./session-player'));

const statusColor = { active: 'blue', ended: 'default', interrupted: 'orange' } as const;

/** The server's terminal sessions, latest first, each with its recording to replay. */
export function ServerSessions({ serverId, serverName }: { serverId: string; serverName: string }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const [replaying, setReplaying] = useState<ServerSession | null>(null);
  const sessions = useQuery({
    queryKey: [...serverKeys.sessions(serverId), page],
    queryFn: () => listSessions({ id: serverId, page, page_size: 10 }),
  });

  const columns: ColumnsType<ServerSession> = [
    {
      title: t('sshServer:sessionColumns.started'),
      dataIndex: 'started_at',
      render: (v: string) => formatDateTime(v),
    },
    { title: t('sshServer:sessionColumns.user'), dataIndex: 'user_name' },
    { title: t('sshServer:sessionColumns.ip'), dataIndex: 'ip', responsive: ['lg'] },
    {
      title: t('sshServer:sessionColumns.status'),
      dataIndex: 'status',
      render: (v: ServerSession['status']) => (
        <Tag color={statusColor[v]}>{t(`sshServer:sessionStatus.${v}`)}</Tag>
      ),
    },
    {
      title: t('sshServer:sessionColumns.duration'),
      dataIndex: 'duration_s',
      render: (v: number | null) =>
        v === null ? '-' : t('sshServer:duration', { m: Math.floor(v / 60), s: v % 60 }),
    },
    {
      title: t('sshServer:sessionColumns.reason'),
      dataIndex: 'end_reason',
      render: (v: string | null) =>
        v ? t(`sshServer:endReasons.${v}` as 'sshServer:endReasons.closed', { defaultValue: v }) : '-',
    },
    {
      title: t('sshServer:sessionColumns.bytes'),
      key: 'bytes',
      responsive: ['lg'],
      render: (_: unknown, r) => t('sshServer:bytes', { in: r.bytes_in, out: r.bytes_out }),
    },
    {
      title: t('sshServer:sessionColumns.recording'),
      key: 'recording',
      render: (_: unknown, r) => (
        <>
          <Button size="small" onClick={() => setReplaying(r)} data-testid={`session-replay-${r.id}`}>
            {t('sshServer:replay')}
          </Button>
          {r.recording_truncated && <Tag style={{ marginLeft: 8 }}>{t('sshServer:truncated')}</Tag>}
        </>
      ),
    },
  ];

  return (
    <Card title={t('sshServer:sessions')}>
      <Typography.Paragraph type="secondary">{t('sshServer:sessionsNote')}</Typography.Paragraph>
      <Table<ServerSession>
        rowKey="id"
        size="small"
        scroll={{ x: 720 }}
        loading={sessions.isLoading}
        columns={columns}
        dataSource={sessions.data?.data ?? []}
        pagination={{ current: page, pageSize: 10, total: sessions.data?.total ?? 0, onChange: setPage }}
        data-testid="server-sessions"
      />
      <ReplayModal session={replaying} serverName={serverName} onClose={() => setReplaying(null)} />
    </Card>
  );
}

function ReplayModal({
  session,
  serverName,
  onClose,
}: {
  session: ServerSession | null;
  serverName: string;
  onClose: () => void;
}) {
  const t = useT();
  // Fetched each time the dialog opens: every replay is audited.
  const recording = useQuery({
    queryKey: ['ssh-server', 'recording', session?.id],
    queryFn: () => fetchRecording(session!.id),
    enabled: session !== null,
    gcTime: 0,
    staleTime: 0,
  });
  const empty = recording.data && recording.data.cast.trimEnd().split('\n').length < 2;
  return (
    <Modal
      open={session !== null}
      onCancel={onClose}
      footer={null}
      width="min(1000px, 96vw)"
      destroyOnHidden
      title={
        session &&
        t('sshServer:replayTitle', {
          user: session.user_name,
          name: serverName,
          at: formatDateTime(session.started_at),
        })
      }
    >
      {session?.recording_truncated && (
        <Alert
          type="warning"
          showIcon
          message={t('sshServer:replayTruncated')}
          style={{ marginBottom: 12 }}
        />
      )}
      {recording.isLoading || !recording.data ? (
        <Spin />
      ) : empty ? (
        <Typography.Text type="secondary">{t('sshServer:replayEmpty')}</Typography.Text>
      ) : (
        <Suspense fallback={<Spin />}>
          <SessionPlayer cast={recording.data.cast} />
        </Suspense>
      )}
    </Modal>
  );
}
