import { Tag, Tooltip } from 'antd';
import type { LogRow } from '../../api/log';
import { useT } from '../../i18n/i18n';
import { auditAction } from '../../i18n/server-labels';

export function ResultTag({ result }: { result: LogRow['result'] }) {
  const t = useT();
  return (
    <Tag color={result === 'success' ? 'green' : 'red'} data-testid="log-result">
      {t(`log:results.${result}`)}
    </Tag>
  );
}

/** The action in words (its code in a tooltip), with "×N" when the record stands for N operations. */
export function ActionText({ record }: { record: Pick<LogRow, 'action' | 'count'> }) {
  const t = useT();
  return (
    <>
      <Tooltip title={record.action}>
        <span data-testid="log-action" data-action={record.action}>
          {auditAction(record.action)}
        </span>
      </Tooltip>
      {record.count > 1 && (
        <Tooltip title={t('log:times', { count: record.count })}>
          <Tag style={{ marginInlineStart: 6 }} data-testid="log-count">
            ×{record.count}
          </Tag>
        </Tooltip>
      )}
    </>
  );
}
