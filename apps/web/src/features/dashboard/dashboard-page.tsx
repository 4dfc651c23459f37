import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Row, Space, Tag, Typography } from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { isSessionExpired } from '../../api/client';
import { dashboardKeys, fetchDashboardSummary } from '../../api/dashboard';
import { abbreviateNumber, formatThousands } from '../../components/number-format';
import { PageLoading } from '../../components/page-loading';
import { useHasPermission } from '../../components/permissions';
import { formatRelativeTime } from '../../components/relative-time';
import { currentLanguage, useT } from '../../i18n/i18n';
import { formatDateTime } from '../../components/date-time';
import { BackupFigure, Figure, HsmFigure, LicenseFigure, paths, SmallFigure } from './dashboard-figures';
import { KeysCard } from './dashboard-keys-card';
import { OperationsCard, REFRESH_MS } from './dashboard-operations';
import { NodesCard, RecentCard } from './dashboard-tables';

/**
 * `alarms`: the alarm card, which the page that mounts the dashboard puts in (features do not
 * import one another); it comes first, under the refresh bar.
 */
export default function DashboardPage({
  alarms,
  refreshKeys = [],
}: {
  alarms?: ReactNode;
  /** Other query keys the refresh button refetches (the alarm card's). */
  refreshKeys?: readonly (readonly string[])[];
}) {
  const t = useT();
  const language = currentLanguage();
  const client = useQueryClient();
  const canReadCerts = useHasPermission('cert:read');
  const canReadUsers = useHasPermission('user:read');
  const canReadLog = useHasPermission('log:read');
  const canReadQuantum = useHasPermission('quantum:read');
  const canReadLicense = useHasPermission('license:read');
  const canReadBackup = useHasPermission('backup:read');
  const canReadHsm = useHasPermission('hsm:read');
  const summary = useQuery({
    queryKey: dashboardKeys.summary,
    queryFn: fetchDashboardSummary,
    refetchInterval: REFRESH_MS,
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

  const certsTo = (filter: string) => (canReadCerts ? `${paths.certs}?${filter}` : null);

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
    { title: t('dashboard:domains'), value: formatThousands(data.domains), testId: 'dashboard-domains' },
    {
      title: t('dashboard:audit'),
      value: abbreviateNumber(data.audit_records),
      testId: 'dashboard-audit',
      footer: t('dashboard:exact', { value: formatThousands(data.audit_records) }),
      to: canReadLog ? paths.log : null,
    },
    {
      title: t('dashboard:sessions'),
      value: formatThousands(data.active_sessions),
      testId: 'dashboard-sessions',
    },
  ];

  const updatedAt = dayjs(summary.dataUpdatedAt).format('HH:mm:ss');
  const refresh = () => {
    for (const queryKey of [['dashboard'], ...refreshKeys]) void client.refetchQueries({ queryKey });
  };
  const notConfigured = (
    <Typography.Text type="secondary">{t('dashboard:services.notConfigured')}</Typography.Text>
  );

  return (
    <Row gutter={[16, 16]}>
      <Col span={24}>
        <Space wrap style={{ justifyContent: 'flex-end', width: '100%' }}>
          <Typography.Text type="secondary" data-testid="dashboard-updated-at">
            {t('dashboard:updatedAt', { time: updatedAt })}
          </Typography.Text>
          <Button
            size="small"
            icon={<ReloadOutlined />}
            loading={summary.isFetching}
            onClick={refresh}
            data-testid="dashboard-refresh"
          >
            {t('dashboard:refresh')}
          </Button>
        </Space>
      </Col>

      {alarms && <Col span={24}>{alarms}</Col>}

      {/* Keys: by state, by family, by algorithm, rotation. */}
      <Col xs={24} xl={12}>
        <KeysCard keys={data.keys} />
      </Col>

      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col xs={24} md={12}>
            <Card title={t('dashboard:certificates.title')} size="small" style={{ height: '100%' }}>
              <Row gutter={8}>
                {(
                  [
                    [30, data.certificates.expiring, certsTo('expiring=true')],
                    [60, data.certificates.expiring_60, certsTo('status=valid')],
                    [90, data.certificates.expiring_90, certsTo('status=valid')],
                  ] as const
                ).map(([days, value, to]) => (
                  <Col key={days} span={8}>
                    <SmallFigure
                      title={t('dashboard:certificates.within', { days })}
                      value={value}
                      to={to}
                      testId={`dashboard-certificates-${days}`}
                    />
                  </Col>
                ))}
              </Row>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('dashboard:certificatesValid', {
                  count: data.certificates.valid,
                  value: formatThousands(data.certificates.valid),
                })}
              </Typography.Text>
            </Card>
          </Col>
          <Col xs={24} md={12}>
            <Card title={t('dashboard:access.title')} size="small" style={{ height: '100%' }}>
              <Row gutter={8}>
                <Col span={12}>
                  <SmallFigure
                    title={t('dashboard:users')}
                    value={data.users}
                    to={canReadUsers ? paths.users : null}
                    testId="dashboard-users"
                  />
                </Col>
                <Col span={12}>
                  <SmallFigure
                    title={t('dashboard:access.failedLogins')}
                    value={data.failed_logins_24h}
                    to={canReadLog ? `${paths.log}?time=24h&result=failure&action=user.login` : null}
                    testId="dashboard-failed-logins"
                  />
                </Col>
              </Row>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('dashboard:domain', { domain: data.domain })}
              </Typography.Text>
            </Card>
          </Col>
          <Col xs={24} md={12}>
            <Card title={t('dashboard:clients.title')} size="small" style={{ height: '100%' }}>
              <Row gutter={8}>
                {(['healthy', 'warning', 'error', 'revoked'] as const).map((status) => (
                  <Col key={status} xs={12} xxl={6}>
                    <SmallFigure
                      title={t(`dashboard:clients.${status}`)}
                      value={data.clients[status]}
                      to={null}
                      testId={`dashboard-clients-${status}`}
                    />
                  </Col>
                ))}
              </Row>
            </Card>
          </Col>
          <Col xs={24} md={12}>
            <Card title={t('dashboard:services.title')} size="small" style={{ height: '100%' }}>
              <Space
                orientation="vertical"
                size={2}
                style={{ width: '100%' }}
                data-testid="dashboard-services"
              >
                <Space wrap>
                  {t('dashboard:services.quantum')}:
                  {canReadQuantum ? (
                    <Link to={paths.quantum}>
                      <Tag
                        color={
                          data.quantum.status === 'normal'
                            ? 'success'
                            : data.quantum.status === 'invalid'
                              ? 'error'
                              : 'default'
                        }
                      >
                        {t(`dashboard:quantumStatus.${data.quantum.status}`)}
                      </Tag>
                    </Link>
                  ) : (
                    <Tag>{t(`dashboard:quantumStatus.${data.quantum.status}`)}</Tag>
                  )}
                </Space>
                <Space wrap data-testid="dashboard-license">
                  {t('dashboard:services.license')}:{' '}
                  {data.license ? (
                    <LicenseFigure license={data.license} link={canReadLicense ? paths.license : null} />
                  ) : (
                    notConfigured
                  )}
                </Space>
                <Space wrap data-testid="dashboard-backup">
                  {t('dashboard:services.backup')}:{' '}
                  {data.last_backup ? (
                    <BackupFigure backup={data.last_backup} link={canReadBackup ? paths.backup : null} />
                  ) : (
                    notConfigured
                  )}
                </Space>
                <Space wrap data-testid="dashboard-hsm">
                  {t('dashboard:services.hsm')}:{' '}
                  {data.hsm ? (
                    <HsmFigure hsm={data.hsm} link={canReadHsm ? paths.hsm : null} />
                  ) : (
                    notConfigured
                  )}
                </Space>
              </Space>
            </Card>
          </Col>
        </Row>
      </Col>

      <Col span={24}>
        <OperationsCard />
      </Col>

      {figures.map((figure) => (
        <Col key={figure.testId} xs={24} sm={12} lg={8} xxl={4}>
          <Figure {...figure} />
        </Col>
      ))}

      {/* Side by side only on a very wide screen: at 1440 px half a row cut the records' result and address. */}
      <Col xs={24} xxl={10}>
        <NodesCard nodes={data.nodes} />
      </Col>
      <Col xs={24} xxl={14}>
        <RecentCard recent={data.recent} />
      </Col>
    </Row>
  );
}
