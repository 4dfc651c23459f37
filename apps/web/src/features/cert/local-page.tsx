import { useState } from 'react';
import { Tabs } from 'antd';
import { useT } from '../../i18n/i18n';
import { CaPanel } from './ca-panel';
import { CertList } from './cert-list';

type Tab = 'certs' | 'cas';

/**
 * Certificates › local: the certificates the local CAs issued (filters and page in the URL)
 * and the local CAs themselves. The tab is kept in the page's state: the list owns the URL.
 */
export default function LocalCertPage() {
  const t = useT();
  const [tab, setTab] = useState<Tab>('certs');
  return (
    <Tabs
      activeKey={tab}
      onChange={(key) => setTab(key === 'cas' ? 'cas' : 'certs')}
      destroyOnHidden
      items={[
        {
          key: 'certs',
          label: <span data-testid="tab-certs">{t('cert:tabs.certs')}</span>,
          children: <CertList />,
        },
        { key: 'cas', label: <span data-testid="tab-cas">{t('cert:tabs.cas')}</span>, children: <CaPanel /> },
      ]}
    />
  );
}
