import type { ReactNode } from 'react';
import { OnceModal } from '../../components/once-modal';
import { SecretText } from '../../components/secret-text';
import { useT } from '../../i18n/i18n';

export interface OnceSecret {
  title: ReactNode;
  secret: string;
  /** More to show under the secret (e.g. how to use it). */
  details?: ReactNode;
  /** What the copy button copies, when not the bare secret. */
  copyText?: string;
}

/**
 * A secret the server shows once (app secret, registration token): the value, a copy
 * button and the warning that it will not be shown again.
 */
export function SecretModal({ value, onClose }: { value: OnceSecret | null; onClose: () => void }) {
  const t = useT();
  return (
    <OnceModal
      open={value !== null}
      title={value?.title}
      onClose={onClose}
      width={600}
      done={{ label: t('access:secret.saved'), testId: 'secret-close' }}
    >
      {value && (
        <SecretText
          warning={t('access:secret.once')}
          value={value.secret}
          copyText={value.copyText}
          details={value.details}
          testIds={{ box: 'secret-modal', value: 'secret-value', copy: 'secret-copy' }}
        />
      )}
    </OnceModal>
  );
}
