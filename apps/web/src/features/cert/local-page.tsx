import { Tabs } from 'antd';
import { useViewSearchParams } from '../../components/view-activity';
import { useT } from '../../i18n/i18n';
import { CaPanel } from './ca-panel';
import { CertList } from './cert-list';
import { CERT_PARAM } from '../../components/cert-links';
import { UkeyCertPanel } from './ukey-panel';

const tabs = ['certs', 'cas', 'ukey'] as const;
type Tab = (typeof tabs)[number];

/** The search param of the tab; the lists keep it as they write their filters and page. */
const TAB_PARAM = 'tab';
const keepParams = [TAB_PARAM, CERT_PARAM] as const;

/**
 * Certificates › local: the certificates the local CAs issued (filters and page in the URL),
 * the local CAs themselves and the users' UKEY certificates. The tab is in the URL too
 * (`?tab=cas`, `?tab=ukey`; none for the certificates), so a reload or "back" keeps it.
 * `?cert=<id>` opens a certificate's details, `?tab=cas&ca=<id>` a CA's (`components/cert-links.ts`).
 */
export default function LocalCertPage() {
  const t = useT();
  const [params, setParams] = useViewSearchParams();
  const tab: Tab = tabs.find((value) => value === params.get(TAB_PARAM)) ?? 'certs';
  // Another tab starts from its own defaults: the filters of the one left do not follow.
  const choose = (key: string) => setParams(key === 'certs' ? {} : { [TAB_PARAM]: key });

  return (
    <Tabs
      activeKey={tab}
      onChange={choose}
      destroyOnHidden
      items={[
        {
          key: 'certs',
          label: <span data-testid="tab-certs">{t('cert:tabs.certs')}</span>,
          children: <CertList keepParams={keepParams} />,
        },
        { key: 'cas', label: <span data-testid="tab-cas">{t('cert:tabs.cas')}</span>, children: <CaPanel /> },
        {
          key: 'ukey',
          label: <span data-testid="tab-ukey">{t('cert:tabs.ukey')}</span>,
          children: <UkeyCertPanel keepParams={keepParams} />,
        },
      ]}
    />
  );
}
