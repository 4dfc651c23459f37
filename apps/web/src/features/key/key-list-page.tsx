import { useT } from '../../i18n/i18n';

// Scaffold only: replaced by the key pages in this same change.
export default function Page() {
  const t = useT();
  return <div>{t('keys:placeholder')}</div>;
}
