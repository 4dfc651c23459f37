import { Alert, Card, Descriptions, Flex, Typography } from 'antd';
import dayjs from 'dayjs';
import type { api } from '@ksp/contracts';
import { type DataOf, type QuantumFailure, type QuantumState, type QuantumStatus } from '@ksp/contracts';
import { StatusTag } from '../../components/columns';
import { formatDateTime } from '../../components/date-time';
import { formatThousands } from '../../components/number-format';
import { useT } from '../../i18n/i18n';
import { formatBytes, formatRate, QUANTUM_REFRESH_MS } from './quantum-values';

/** The answer of "Test now". */
export type TestResult = DataOf<typeof api.quantum.test>;

const statusColors: Record<QuantumStatus, string> = {
  normal: 'green',
  invalid: 'red',
  disabled: 'default',
};

/** The text of a failed call, for the page to show. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The status of the source on the node that answered. */
export function StatusCard({ state, fetchedAt }: { state: QuantumState; fetchedAt: number }) {
  const t = useT();
  const statusLabels: Record<QuantumStatus, string> = {
    normal: t('quantum:status.normal'),
    invalid: t('quantum:status.invalid'),
    disabled: t('quantum:status.disabled'),
  };
  const failureText = (failure: QuantumFailure) => t(`quantum:failures.${failure}`);
  const wrap = { wordBreak: 'break-word' } as const;

  return (
    <Card
      title={t('quantum:statusTitle')}
      data-testid="quantum-status-card"
      extra={
        <Typography.Text type="secondary" data-testid="quantum-updated-at">
          {t('quantum:updatedAt', { time: dayjs(fetchedAt).format('HH:mm:ss') })}
        </Typography.Text>
      }
    >
      <Flex vertical gap={16}>
        <Descriptions
          size="small"
          column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 1, xxl: 2 }}
          items={[
            {
              key: 'status',
              label: t('quantum:info.status'),
              children: (
                <StatusTag
                  value={state.status}
                  colors={statusColors}
                  labels={statusLabels}
                  testId="quantum-status"
                />
              ),
            },
            {
              key: 'source',
              label: t('quantum:info.source'),
              children: (
                <span style={wrap} data-testid="quantum-current-source">
                  {state.endpoint
                    ? `${t(`quantum:sourceTypes.${state.source_type}`)} · ${state.endpoint}`
                    : t('quantum:info.noSource')}
                </span>
              ),
            },
            {
              key: 'node',
              label: t('quantum:info.node'),
              children: <span style={wrap}>{state.node}</span>,
            },
            {
              key: 'lastCheck',
              label: t('quantum:info.lastCheck'),
              children: state.last_check ? formatDateTime(state.last_check) : t('quantum:info.never'),
            },
            {
              key: 'throughput',
              label: t('quantum:info.throughput'),
              children: <span data-testid="quantum-throughput">{formatRate(state.throughput)}</span>,
            },
            {
              key: 'bytes',
              label: t('quantum:info.bytesConsumed'),
              children: (
                <span
                  data-testid="quantum-bytes-consumed"
                  data-value={state.bytes_consumed}
                  title={formatThousands(state.bytes_consumed)}
                >
                  {formatBytes(state.bytes_consumed)}
                </span>
              ),
            },
            {
              key: 'failures',
              label: t('quantum:info.failures'),
              children: <span data-testid="quantum-failures">{formatThousands(state.failures)}</span>,
            },
            { key: 'rct', label: t('quantum:info.rctCutoff'), children: state.rct_cutoff },
            { key: 'apt', label: t('quantum:info.aptCutoff'), children: state.apt_cutoff },
          ]}
        />
        {state.status === 'invalid' && (state.failure || state.detail) && (
          <Alert
            type="error"
            showIcon
            data-testid="quantum-failure"
            title={state.failure ? failureText(state.failure) : t('quantum:status.invalid')}
            description={state.detail ? <span style={wrap}>{state.detail}</span> : undefined}
          />
        )}
        <Alert type="info" showIcon title={t('quantum:note')} />
        <Typography.Text type="secondary">
          {t('quantum:info.perNode')} {t('quantum:refreshHint', { seconds: QUANTUM_REFRESH_MS / 1000 })}
        </Typography.Text>
      </Flex>
    </Card>
  );
}

/** The outcome of "Test now": ok or the failure, its detail, the bytes read and the time. */
export function TestOutcome({ result, error }: { result: TestResult | null; error: string | null }) {
  const t = useT();
  if (error !== null) {
    return (
      <div data-testid="quantum-test-result" data-ok="false">
        <Alert type="error" showIcon title={t('quantum:test.error')} description={error} />
      </div>
    );
  }
  if (!result) return null;
  const figures = t('quantum:test.figures', { bytes: formatBytes(result.bytes), ms: result.ms.toFixed(1) });
  return (
    <div data-testid="quantum-test-result" data-ok={String(result.ok)}>
      <Alert
        type={result.ok ? 'success' : 'error'}
        showIcon
        title={
          result.ok
            ? t('quantum:test.ok')
            : `${t('quantum:test.failed')}: ${
                result.failure ? t(`quantum:failures.${result.failure}`) : t('quantum:status.invalid')
              }`
        }
        description={
          <Flex vertical>
            {result.detail && <span style={{ wordBreak: 'break-word' }}>{result.detail}</span>}
            <span>{figures}</span>
          </Flex>
        }
      />
    </div>
  );
}
