import { Space, Tag, Typography } from 'antd';
import { algorithmInfo, type AlgorithmId } from '@ksp/contracts';
import type { KeyRow } from '../../api/key';
import { useT } from '../../i18n/i18n';
import { algorithmVariant, orderedUsages } from './key-model';

/** Key check values and fingerprints: monospace, broken anywhere. */
export const mono = { fontFamily: 'monospace', wordBreak: 'break-all' } as const;

const stateColors: Record<KeyRow['state_label'], string> = {
  'in-use': 'green',
  inactive: 'blue',
  disabled: 'orange',
  destroyed: 'default',
};

/** The console's state label (docs/modules.md#decisions), with a "compromised" badge for compromised keys. */
export function KeyStateTags({ row }: { row: Pick<KeyRow, 'name' | 'state' | 'state_label'> }) {
  const t = useT();
  const compromised = row.state === 'compromised' || row.state === 'destroyed-compromised';
  return (
    <Space size={4} wrap data-testid={`key-state-${row.name}`}>
      <Tag color={stateColors[row.state_label]}>{t(`keys:states.${row.state_label}`)}</Tag>
      {compromised && (
        <Tag color="red" data-testid="key-compromised">
          {t('keys:compromised')}
        </Tag>
      )}
    </Space>
  );
}

/** "256 bits", "P-256 · 256 bits", "NIST level 3" (the id already names the parameter set). */
export function useAlgorithmCaption() {
  const t = useT();
  return (id: AlgorithmId): string => {
    const variant = algorithmVariant(id);
    if (variant.kind === 'pqc') return t('keys:algorithm.level', { level: variant.category });
    if (variant.kind === 'curve')
      return `${variant.curve} · ${t('keys:algorithm.bits', { bits: variant.bits })}`;
    return t('keys:algorithm.bits', { bits: variant.bits });
  };
}

export function AlgorithmCell({ algorithm }: { algorithm: AlgorithmId }) {
  const caption = useAlgorithmCaption();
  return (
    <Space orientation="vertical" size={0}>
      <Typography.Text>{algorithm}</Typography.Text>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {caption(algorithm)}
      </Typography.Text>
    </Space>
  );
}

/** "NIST category 3 (≈ 192-bit)" for post-quantum algorithms, null for the others. */
export function useSecurityLevel() {
  const t = useT();
  return (id: AlgorithmId): string | null => {
    const info = algorithmInfo(id);
    return info.pqc ? t('keys:algorithm.category', { level: info.pqc.category, bits: info.sizeBits }) : null;
  };
}

export function UsageTags({ usages }: { usages: readonly string[] }) {
  const t = useT();
  return (
    <Space size={[4, 4]} wrap>
      {orderedUsages(usages).map((word) => (
        <Tag key={word} style={{ marginInlineEnd: 0 }}>
          {t(`keys:usage.${word}`)}
        </Tag>
      ))}
    </Space>
  );
}

export function KeyTypeText({ type }: { type: KeyRow['object_type'] }) {
  const t = useT();
  return <>{t(`keys:types.${type}`)}</>;
}
