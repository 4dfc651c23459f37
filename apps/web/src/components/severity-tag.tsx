import { Tag } from 'antd';
import type { LogSeverity } from '@ksp/contracts';
import { useT } from '../i18n/i18n';

/** The colour of each severity's tag (server records and alarms alike). */
export const severityColors: Record<LogSeverity, string> = {
  INFO: 'blue',
  WARNING: 'orange',
  ERROR: 'red',
  CRITICAL: 'magenta',
};

/** A severity (INFO … CRITICAL) as a coloured tag, in the user's language. */
export function SeverityTag({ severity }: { severity: LogSeverity }) {
  const t = useT();
  return (
    <Tag color={severityColors[severity]} data-testid="log-severity" data-severity={severity}>
      {t(`log:severities.${severity}`)}
    </Tag>
  );
}
