import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Card, Statistic, Tag, Typography } from 'antd';
import type { api, DataOf } from '@ksp/contracts';
import { formatDateTime } from '../../components/date-time';
import { formatThousands } from '../../components/number-format';
import { useT } from '../../i18n/i18n';

/** The dashboard's figures, as the server sums them up. */
export type Summary = DataOf<typeof api.dashboard.summary>;

/** The lists a figure links to. */
export const paths = {
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
export function LicenseFigure({
  license,
  link,
}: {
  license: NonNullable<Summary['license']>;
  link: string | null;
}) {
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
export function BackupFigure({
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
export function HsmFigure({ hsm, link }: { hsm: NonNullable<Summary['hsm']>; link: string | null }) {
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
export function FigureValue({ value, to, testId }: { value: string; to: string | null; testId: string }) {
  return to ? (
    <Link to={to} data-testid={testId}>
      {value}
    </Link>
  ) : (
    <span data-testid={testId}>{value}</span>
  );
}

/** A figure of its own card, with a line under it. */
export function Figure({
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
export function SmallFigure({
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
