import { useT } from '../../i18n/i18n';

// Scaffold only: replaced by the access-management pages in this same change.
export default function Page() {
  const t = useT();
  return <div>{t('access:placeholder')}</div>;
}
