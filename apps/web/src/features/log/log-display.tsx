import type { ReactNode } from 'react';
import { Tag, Tooltip, type DescriptionsProps } from 'antd';
import type { LogRow } from '../../api/log';
import { CopyableText } from '../../components/copyable-text';
import { DetailDrawer } from '../../components/detail-drawer';
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

/**
 * One record (server or client) in a drawer: its id first (`<testId>-id`), the other fields,
 * then its details as JSON (`<testId>-details`). Records never change: the row is the record.
 */
export function RecordDetailDrawer({
  record,
  title,
  testId,
  labels,
  items,
  onClose,
}: {
  record: { id: string; details: unknown };
  title: ReactNode;
  testId: string;
  labels: { id: ReactNode; details: ReactNode };
  items: NonNullable<DescriptionsProps['items']>;
  onClose: () => void;
}) {
  return (
    <DetailDrawer
      record={record}
      onClose={onClose}
      title={() => title}
      testId={testId}
      items={() => [
        { key: 'id', label: labels.id, children: <span data-testid={`${testId}-id`}>{record.id}</span> },
        ...items,
      ]}
    >
      {() => (
        <CopyableText
          label={labels.details}
          value={JSON.stringify(record.details, null, 2)}
          testId={`${testId}-details`}
          maxRows={20}
        />
      )}
    </DetailDrawer>
  );
}
