import { Card, Empty, Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { EllipsisText } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { formatRelativeTime } from '../../components/relative-time';
import { currentLanguage, useT } from '../../i18n/i18n';
import { auditAction } from '../../i18n/server-labels';
import type { Summary } from './dashboard-figures';

type AuditRow = Summary['recent'][number];
type NodeRow = Summary['nodes'][number];

/** A column of a recent audit record cut to its width, the whole text in a tooltip. */
function ellipsis(
  title: string,
  dataIndex: keyof AuditRow,
  format: (value: string) => string = (value) => value || '-',
): ColumnsType<AuditRow>[number] {
  return {
    title,
    dataIndex,
    ellipsis: { showTitle: false },
    render: (value: string) => <EllipsisText text={format(value)} />,
  };
}

/** The nodes of the cluster: version, uptime, and when a node that is down was last seen. */
export function NodesCard({ nodes }: { nodes: NodeRow[] }) {
  const t = useT();
  const language = currentLanguage();
  const nodeColumns: ColumnsType<NodeRow> = [
    { title: t('dashboard:nodes.name'), dataIndex: 'name' },
    { title: t('dashboard:nodes.version'), dataIndex: 'version' },
    {
      title: t('dashboard:nodes.uptime'),
      dataIndex: 'uptime_seconds',
      render: (s: number, row) => (row.up ? formatRelativeTime(s, language) : '-'),
    },
    {
      title: t('dashboard:nodes.status'),
      dataIndex: 'up',
      render: (up: boolean, row) =>
        up ? (
          <Tag color="success">{t('dashboard:nodes.up')}</Tag>
        ) : (
          <Space size={4} wrap>
            <Tag color="error">{t('dashboard:nodes.down')}</Tag>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {t('dashboard:nodes.lastSeen', { at: formatDateTime(row.last_seen) })}
            </Typography.Text>
          </Space>
        ),
    },
  ];
  return (
    <Card title={t('dashboard:nodes.title')} style={{ height: '100%' }}>
      {nodes.length === 0 ? (
        <Empty />
      ) : (
        <Table<NodeRow>
          rowKey="name"
          size="small"
          columns={nodeColumns}
          dataSource={nodes}
          pagination={false}
          scroll={{ x: 'max-content' }}
          data-testid="dashboard-nodes"
        />
      )}
    </Card>
  );
}

/** The latest audit records of the domain. */
export function RecentCard({ recent }: { recent: AuditRow[] }) {
  const t = useT();
  // A fixed layout: the time, result and address keep their widths, the action and its
  // target share the rest and are cut with an ellipsis (whole in a tooltip), so the table never
  // grows past its card and the result and address stay on screen.
  const columns: ColumnsType<AuditRow> = [
    {
      title: t('dashboard:columns.at'),
      dataIndex: 'at',
      width: 170,
      render: (at: string) => formatDateTime(at),
    },
    { ...ellipsis(t('dashboard:columns.username'), 'username'), width: 120 },
    { ...ellipsis(t('dashboard:columns.domain'), 'domain'), width: 110 },
    ellipsis(t('dashboard:columns.action'), 'action', auditAction),
    ellipsis(t('dashboard:columns.target'), 'target'),
    {
      title: t('dashboard:columns.result'),
      dataIndex: 'result',
      width: 100,
      render: (result: AuditRow['result']) => (
        <Tag color={result === 'success' ? 'success' : 'error'} data-testid="dashboard-recent-result">
          {t(`dashboard:results.${result}`)}
        </Tag>
      ),
    },
    { ...ellipsis(t('dashboard:columns.source'), 'source_ip'), width: 150 },
  ];
  return (
    <Card title={t('dashboard:recent')}>
      <Table<AuditRow>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={recent}
        pagination={false}
        tableLayout="fixed"
        // Narrower than this (a phone) it scrolls rather than squeezing the action to nothing.
        scroll={{ x: 900 }}
        data-testid="dashboard-recent"
      />
    </Card>
  );
}
