import { Typography } from 'antd';
import { OnceModal } from '../../components/once-modal';
import { SecretText } from '../../components/secret-text';
import { useT } from '../../i18n/i18n';

/** A database client's new access token, as a create or a regeneration answered it. */
export interface IssuedToken {
  title: string;
  token: string;
}

/**
 * The token the server answers once (KSP keeps only its hash): the value, a copy button, the
 * warning that it is not shown again, and where the database puts it. The page renders it only
 * while it has a token, so closing it takes the token out of the page at once (a closing antd
 * modal would keep its content in the page until its animation ends).
 */
export function DbTokenModal({ value, onClose }: { value: IssuedToken; onClose: () => void }) {
  const t = useT();
  return (
    <OnceModal
      open
      title={value.title}
      onClose={onClose}
      width={640}
      done={{ label: t('tdeDatabase:token.done'), testId: 'db-token-done' }}
    >
      <SecretText
        warning={t('tdeDatabase:token.once')}
        value={value.token}
        testIds={{ box: 'db-token', value: 'db-token-value', copy: 'db-token-copy' }}
      >
        <Typography.Text type="secondary">{t('tdeDatabase:token.use')}</Typography.Text>
      </SecretText>
    </OnceModal>
  );
}
