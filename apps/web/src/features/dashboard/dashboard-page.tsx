import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Card,
  Col,
  Empty,
  Row,
  Segmented,
  Space,
  Statistic,
  Table,
  Tag,
  Typography,
} from 'antd';
import { ReloadOutlined } from '@ant-design/icons';
import type { ColumnsType } from 'antd/es/table';
import dayjs from 'dayjs';
import type { api } from '@ksp/contracts';
import { opClasses, type DataOf, type OpRange } from '@ksp/contracts';
import { isSessionExpired } from '../../api/client';
import { dashboardKeys, fetchDashboardOperations, fetchDashboardSummary } from '../../api/dashboard';
import { abbreviateNumber, formatThousands } from '../../components/number-format';
import { PageLoading } from '../../components/page-loading';
import { useHasPermission } from '../../components/permissions';
import { formatRelativeTime } from '../../components/relative-time';
import { currentLanguage, useT } from '../../i18n/i18n';
import { auditAction } from '../../i18n/server-labels';
import { EllipsisText } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';

type Summary = DataOf<typeof api.dashboard.summary>;
type AuditRow = Summary['recent'][number];
type NodeRow = Summary['nodes'][number];

// recharts is loaded with the charts only, in a chunk of its own.
const OperationsChart = lazy(() =>
  import('./dashboard-charts').then((m) => ({ default: m.OperationsChart })),
);
const CategoryChart = lazy(() => import('./dashboard-charts').then((m) => ({ default: m.CategoryChart })));

/** How often the figures are read again. */
export const REFRESH_MS = 30_000;

const paths = {
  keys: '/console/key',
  certs: '/console/cert/local',
  users: '/console/access/user',
  log: '/console/log',
  quantum: '/console/setting/quantum',
  license: '/console/setting/license',
  hsm: '/console/setting/hsm',
  backup: '/console/setting/backup',
};

/** The licence state, key usage and days left; links to settings › licenses when readable. */
function LicenseFigure({ license, link }: { license: NonNullable<Summary['license']>; link: string | null }) {
  const t = useT();
  const color = { community: 'default', licensed: 'success', expired: 'error' }[license.state];
  const tag = <Tag color={color}>{t(`dashboard:licenseState.${license.state}`)}</Tag>;
  return (
    <>
      {link ? <Link to={link}>{tag}</Link> : tag}
      <span>
        {t('dashboard:licenseKeys', {
          used: formatThousands(license.keys_used),
          total: formatThousands(license.keys_total),
        })}
      </span>
      {license.days_left !== null && (
        <span>{t('dashboard:licenseDaysLeft', { days: license.days_left })}</span>
      )}
    </>
  );
}

/** The last completed backup: its time and scope; links to settings › backups when readable. */
function BackupFigure({
  backup,
  link,
}: {
  backup: NonNullable<Summary['last_backup']>;
  link: string | null;
}) {
  const t = useT();
  const tag = <Tag color="success">{formatDateTime(backup.finished_at)}</Tag>;
  return (
    <>
      {link ? <Link to={link}>{tag}</Link> : tag}
      <span>{t(`backup:scopes.${backup.scope}`)}</span>
    </>
  );
}

/** What seals the root key: the HSM token (green) or the seal file; links to settings › HSM when readable. */
function HsmFigure({ hsm, link }: { hsm: NonNullable<Summary['hsm']>; link: string | null }) {
  const t = useT();
  const tag =
    hsm.root_provider === 'pkcs11' ? (
      <Tag color="success">{t('dashboard:hsmBound', { label: hsm.token_label ?? '' })}</Tag>
    ) : (
      <Tag>{t('dashboard:hsmSealFile')}</Tag>
    );
  return link ? <Link to={link}>{tag}</Link> : tag;
}

/** A figure that links to its filtered list when the user may read that list. */
function FigureValue({ value, to, testId }: { value: string; to: string | null; testId: string }) {
  return to ? (
    <Link to={to} data-testid={testId}>
      {value}
    </Link>
  ) : (
    <span data-testid={testId}>{value}</span>
  );
}

function Figure({
  title,
  value,
  testId,
  footer,
  to = null,
}: {
  title: string;
  value: string;
  testId: string;
  footer?: ReactNode;
  to?: string | null;
}) {
  return (
    <Card size="small" style={{ height: '100%' }}>
      <Statistic
        title={title}
        value={value}
        formatter={() => <FigureValue value={value} to={to} testId={testId} />}
      />
      {footer && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {footer}
        </Typography.Text>
      )}
    </Card>
  );
}

/** A small figure inside a widget card. */
function SmallFigure({
  title,
  value,
  to,
  testId,
}: {
  title: string;
  value: number;
  to: string | null;
  testId: string;
}) {
  return (
    <Statistic
      title={title}
      value={value}
      styles={{ content: { fontSize: 20 } }}
      formatter={() => <FigureValue value={formatThousands(value)} to={to} testId={testId} />}
    />
  );
}

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

const chartFallback = (height: number) => <div style={{ height }} />;

function OperationsCard() {
  const t = useT();
  const [range, setRange] = useState<OpRange>('24h');
  const ops = useQuery({
    queryKey: dashboardKeys.operations(range),
    queryFn: () => fetchDashboardOperations(range),
    refetchInterval: REFRESH_MS,
  });
  const data = ops.data;
  const series = opClasses.map((c) => ({ key: c, label: t(`dashboard:classes.${c}`) }));
  const format = range === '24h' ? 'HH:mm' : 'MM-DD HH:mm';
  const points = (data?.points ?? []).map((p) => ({ label: dayjs(p.at).format(format), ...p.counts }));
  return (
    <Card
      title={t('dashboard:operations.title')}
      data-testid="dashboard-operations"
      extra={
        <Segmented<OpRange>
          size="small"
          value={range}
          onChange={setRange}
          options={[
            { value: '24h', label: t('dashboard:operations.range24h') },
            { value: '7d', label: t('dashboard:operations.range7d') },
          ]}
        />
      }
    >
      {data ? (
        <>
          <Space wrap size={[16, 8]} style={{ marginBottom: 8 }}>
            <Typography.Text strong data-testid="dashboard-operations-total">
              {t('dashboard:operations.total', { count: formatThousands(data.total) })}
            </Typography.Text>
            <Typography.Text type="secondary">
              {t(range === '24h' ? 'dashboard:operations.per5min' : 'dashboard:operations.perHour')}
            </Typography.Text>
            {opClasses.map((c) => (
              <Tag key={c}>
                {t(`dashboard:classes.${c}`)}:{' '}
                <span data-testid={`dashboard-ops-${c}`}>{formatThousands(data.totals[c])}</span>
              </Tag>
            ))}
          </Space>
          <Suspense fallback={chartFallback(260)}>
            <OperationsChart points={points} series={series} />
          </Suspense>
        </>
      ) : (
        chartFallback(260)
      )}
    </Card>
  );
}

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
  const canReadKeys = useHasPermission('key:read');
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

  const keysTo = (filter: string) => (canReadKeys ? `${paths.keys}?${filter}` : null);
  const certsTo = (filter: string) => (canReadCerts ? `${paths.certs}?${filter}` : null);

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

  const families = data.keys.by_family.map((f) => ({
    key: f.family,
    label: t(`dashboard:families.${f.family}`),
    count: f.count,
  }));
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
        <Card
          title={t('dashboard:keys.title')}
          style={{ height: '100%' }}
          extra={
            <Typography.Text type="secondary">
              <FigureValue
                value={t('dashboard:keys.total', { count: formatThousands(data.keys.total) })}
                to={canReadKeys ? paths.keys : null}
                testId="dashboard-keys-total"
              />
            </Typography.Text>
          }
        >
          <Typography.Text type="secondary">{t('dashboard:keys.byState')}</Typography.Text>
          <Row gutter={[8, 8]} style={{ marginBottom: 12 }}>
            {data.keys.by_state.map((s) => (
              <Col key={s.state} xs={12} sm={6}>
                <SmallFigure
                  title={t(`dashboard:states.${s.state}`)}
                  value={s.count}
                  to={keysTo(`state=${s.state}`)}
                  testId={`dashboard-keys-${s.state}`}
                />
              </Col>
            ))}
          </Row>
          <Row gutter={[8, 8]} style={{ marginBottom: 12 }}>
            <Col xs={12}>
              <SmallFigure
                title={t('dashboard:keys.rotationOverdue')}
                value={data.keys.rotation.overdue}
                to={null}
                testId="dashboard-keys-rotation-overdue"
              />
            </Col>
            <Col xs={12}>
              <SmallFigure
                title={t('dashboard:keys.rotationDue')}
                value={data.keys.rotation.due}
                to={null}
                testId="dashboard-keys-rotation-due"
              />
            </Col>
            <Col span={24}>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('dashboard:keys.rotationHint')}
              </Typography.Text>
            </Col>
          </Row>
          <Typography.Text type="secondary">{t('dashboard:keys.byFamily')}</Typography.Text>
          <Suspense fallback={chartFallback(200)}>
            <CategoryChart data={families} height={200} />
          </Suspense>
          <Space wrap size={[4, 4]} data-testid="dashboard-keys-algorithms">
            {data.keys.by_algorithm.length === 0 && (
              <Typography.Text type="secondary">{t('dashboard:keys.none')}</Typography.Text>
            )}
            {data.keys.by_algorithm.map((a) => {
              const label = `${a.algorithm} ${formatThousands(a.count)}`;
              const to = keysTo(`algorithm=${encodeURIComponent(a.algorithm)}`);
              return <Tag key={a.algorithm}>{to ? <Link to={to}>{label}</Link> : label}</Tag>;
            })}
          </Space>
        </Card>
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
        <Card title={t('dashboard:nodes.title')} style={{ height: '100%' }}>
          {data.nodes.length === 0 ? (
            <Empty />
          ) : (
            <Table<NodeRow>
              rowKey="name"
              size="small"
              columns={nodeColumns}
              dataSource={data.nodes}
              pagination={false}
              scroll={{ x: 'max-content' }}
              data-testid="dashboard-nodes"
            />
          )}
        </Card>
      </Col>
      <Col xs={24} xxl={14}>
        <Card title={t('dashboard:recent')}>
          <Table<AuditRow>
            rowKey="id"
            size="small"
            columns={columns}
            dataSource={data.recent}
            pagination={false}
            tableLayout="fixed"
            // Narrower than this (a phone) it scrolls rather than squeezing the action to nothing.
            scroll={{ x: 900 }}
            data-testid="dashboard-recent"
          />
        </Card>
      </Col>
    </Row>
  );
}
