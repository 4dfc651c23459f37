import { Tag } from 'antd';
import type { ClientLogEffect, ClientLogLevel } from '@ksp/contracts';
import { useT } from '../../i18n/i18n';

/** The colour of each agent level's tag. */
export const levelColors: Record<ClientLogLevel, string> = {
  DEBUG: 'default',
  INFO: 'blue',
  WARN: 'orange',
  ERROR: 'red',
  FATAL: 'magenta',
};

const effectColors: Record<ClientLogEffect, string> = { permit: 'green', deny: 'red', audit: 'gold' };

export function LevelTag({ level }: { level: ClientLogLevel }) {
  const t = useT();
  return (
    <Tag color={levelColors[level]} data-testid="client-log-level" data-level={level}>
      {t(`log:client.levels.${level}`)}
    </Tag>
  );
}

export function EffectTag({ effect }: { effect: ClientLogEffect }) {
  const t = useT();
  return (
    <Tag color={effectColors[effect]} data-testid="client-log-effect" data-effect={effect}>
      {t(`log:client.effects.${effect}`)}
    </Tag>
  );
}
