import { Tooltip, Typography } from 'antd';
import { formatDateTime } from '../../components/date-time';
import { formatTimeAgo } from '../../components/relative-time';
import { useT } from '../../i18n/i18n';

/** "Just now" under a minute, else "5 minutes ago", "3 hours ago", "2 days ago". */
export function timeAgo(value: string, t: ReturnType<typeof useT>, now = Date.now()): string {
  return now - new Date(value).getTime() < 60_000
    ? t('access:time.justNow')
    : t('access:time.ago', { time: formatTimeAgo(value, now) });
}

/** "3 hours ago" with the exact time on hover; `emptyText` when there is no time. */
export function TimeAgo({ value, emptyText }: { value: string | null; emptyText?: string }) {
  const t = useT();
  if (!value) return <Typography.Text type="secondary">{emptyText ?? '-'}</Typography.Text>;
  return (
    <Tooltip title={formatDateTime(value)}>
      <span>{timeAgo(value, t)}</span>
    </Tooltip>
  );
}
