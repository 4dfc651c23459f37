import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Row, Statistic, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { DataOf, api } from '@ksp/contracts';
import { isSessionExpired } from '../../api/client';
import { dashboardKeys, fetchDashboardSummary } from '../../api/dashboard';
import { abbreviateNumber, formatThousands } from '../../components/number-format';
import { PageLoading } from '../../components/page-loading';
import { formatRelativeTime } from '../../components/relative-time';
import { currentLanguage, useT } from '../../i18n/i18n';
import { auditAction } from '../../i18n/server-labels';
import { formatDateTime } from '../../components/date-time';

type Summary = DataOf<typeof api.dashboard.summary>;
type AuditRow = Summary['recent'][number];

function Figure({
  title,
  value,
  testId,
  footer,
}: {
  title: string;
  value: string;
  testId: string;
  footer?: ReactNode;
}) {
  return (
    <Card size="small" style={{ height: '100%' }}>
      <Statistic title={title} value={value} formatter={() => <span data-testid={testId}>{value}</span>} />
      {footer && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {footer}
        </Typography.Text>
      )}
    </Card>
  );
}

export default function DashboardPage() {
  const t = useT();
  const language = currentLanguage();
  const summary = useQuery({
    queryKey: dashboardKeys.summary,
    queryFn: fetchDashboardSummary,
    refetchInterval: 60_000,
  });

  const data = summary.data;
  if (!data) {
    // An expired session has the client's own dialog over the page; other failures show here.
    if (summary.isError && !isSessionExpired(summary.error)) {
      return <Alert type="error" showIcon title={summary.error.message || t('common:feedback.error')} />;
    }
    return <PageLoading />;
  }
  // A failed refresh (an expired session, say) keeps the figures already shown under its dialog.

  const columns: ColumnsType<AuditRow> = [
    {
      title: t('dashboard:columns.at'),
      dataIndex: 'at',
      render: (at: string) => formatDateTime(at),
    },
    { title: t('dashboard:columns.username'), dataIndex: 'username' },
    { title: t('dashboard:columns.domain'), dataIndex: 'domain' },
    {
      title: t('dashboard:columns.action'),
      dataIndex: 'action',
      render: (action: string) => auditAction(action),
    },
    { title: t('dashboard:columns.target'), dataIndex: 'target' },
    {
      title: t('dashboard:columns.result'),
      dataIndex: 'result',
      render: (result: AuditRow['result']) => (
        <Tag color={result === 'success' ? 'success' : 'error'}>{t(`dashboard:results.${result}`)}</Tag>
      ),
    },
    { title: t('dashboard:columns.source'), dataIndex: 'source_ip' },
  ];

  const figures = [
    { title: t('dashboard:version'), value: data.version, testId: 'dashboard-version' },
    {
      title: t('dashboard:node'),
      value: data.node,
      testId: 'dashboard-node',
      footer: `${t('dashboard:database')}: ${data.database}`,
    },
    {
      title: t('dashboard:uptime'),
      value: formatRelativeTime(data.uptime_seconds, language),
      testId: 'dashboard-uptime',
      footer: t('dashboard:startedAt', { at: formatDateTime(data.started_at) }),
    },
    {
      title: t('dashboard:users'),
      value: formatThousands(data.users),
      testId: 'dashboard-users',
      footer: t('dashboard:domain', { domain: data.domain }),
    },
    { title: t('dashboard:domains'), value: formatThousands(data.domains), testId: 'dashboard-domains' },
    {
      title: t('dashboard:audit'),
      value: abbreviateNumber(data.audit_records),
      testId: 'dashboard-audit',
      footer: t('dashboard:exact', { value: formatThousands(data.audit_records) }),
    },
    {
      title: t('dashboard:sessions'),
      value: formatThousands(data.active_sessions),
      testId: 'dashboard-sessions',
    },
    {
      title: t('dashboard:certificatesExpiring'),
      value: formatThousands(data.certificates.expiring),
      testId: 'dashboard-certificates-expiring',
      footer: t('dashboard:certificatesValid', { count: formatThousands(data.certificates.valid) }),
    },
  ];

  return (
    <Row gutter={[16, 16]}>
      {figures.map((figure) => (
        <Col key={figure.testId} xs={24} sm={12} lg={8} xxl={6}>
          <Figure {...figure} />
        </Col>
      ))}
      <Col span={24}>
        <Card title={t('dashboard:recent')}>
          <Table<AuditRow>
            rowKey="id"
            size="small"
            columns={columns}
            dataSource={data.recent}
            pagination={false}
            scroll={{ x: 'max-content' }}
          />
        </Card>
      </Col>
    </Row>
  );
}
