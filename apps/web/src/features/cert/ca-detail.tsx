import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { caDetail, certKeys, type CaDownloadKind } from '../../api/cert';
import { StatusTag } from '../../components/columns';
import { DetailDrawer } from '../../components/detail-drawer';
import { formatDateTime } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { caDownloads } from './cert-actions';
import {
  caStateColors,
  createdAtItem,
  DefaultMark,
  DownloadMenu,
  Hex,
  CertPemBlocks,
  validityItems,
} from './cert-display';

/** A local CA with every field, its CRL figures and its PEMs. */
export function CaDetailDrawer({
  id,
  onClose,
  onDownload,
}: {
  id: string;
  onClose: () => void;
  onDownload: (kind: CaDownloadKind) => void;
}) {
  const t = useT();
  const detail = useQuery({ queryKey: certKeys.caDetail(id), queryFn: () => caDetail(id) });
  const stateLabels = {
    pending: t('cert:states.pending'),
    active: t('cert:states.active'),
    expired: t('cert:states.expired'),
  };

  return (
    <DetailDrawer
      record={detail.data}
      onClose={onClose}
      title={(ca) => t('cert:ca.detailTitle', { name: ca.name })}
      extra={(ca) => (
        <DownloadMenu
          kinds={caDownloads(ca)}
          label={(kind) => t(`cert:ca.downloads.${kind}`)}
          onChoose={onDownload}
          testId="ca-detail-download"
          button="default"
        />
      )}
      testId="ca-detail"
      items={(ca) => [
        {
          key: 'name',
          label: t('cert:fields.name'),
          children: (
            <>
              {ca.name} {ca.is_default && <DefaultMark />}
            </>
          ),
        },
        { key: 'cn', label: t('cert:fields.cn'), children: ca.cn },
        { key: 'subject', label: t('cert:fields.subject'), children: ca.subject },
        { key: 'issuer', label: t('cert:fields.issuer'), children: ca.issuer ?? '-' },
        {
          key: 'state',
          label: t('cert:fields.state'),
          children: <StatusTag value={ca.state} colors={caStateColors} labels={stateLabels} />,
        },
        {
          key: 'type',
          label: t('cert:fields.type'),
          children: ca.type ? <Tag>{t(`cert:types.${ca.type}`)}</Tag> : '-',
        },
        { key: 'parent', label: t('cert:fields.parent'), children: ca.parent_name ?? '-' },
        {
          key: 'algorithm',
          label: t('cert:fields.algorithmLength'),
          children: `${ca.algorithm} / ${ca.key_bits}`,
        },
        {
          key: 'path_len',
          label: t('cert:fields.pathLen'),
          children: ca.path_len ?? (ca.state === 'pending' ? '-' : t('cert:common.unlimited')),
        },
        { key: 'serial', label: t('cert:fields.serial'), children: <Hex value={ca.serial} /> },
        ...validityItems(t, ca),
        { key: 'issued', label: t('cert:fields.issued'), children: ca.issued },
        {
          key: 'crl',
          label: t('cert:fields.crl'),
          children: (
            <span data-testid="ca-crl">
              {ca.crl
                ? t('cert:ca.crlEntries', {
                    count: ca.crl.entries,
                    number: ca.crl.number,
                    next: formatDateTime(ca.crl.next_update),
                  })
                : t('cert:ca.noCrl')}
            </span>
          ),
        },
        { key: 'crl_url', label: t('cert:fields.crlUrl'), children: ca.crl_url },
        { key: 'ocsp_url', label: t('cert:fields.ocspUrl'), children: ca.ocsp_url },
        { key: 'key_id', label: t('cert:fields.privateKey'), children: <Hex value={ca.key_id} /> },
        createdAtItem(t, ca),
      ]}
    >
      {(ca) => <CertPemBlocks pems={ca} testId="ca-detail" />}
    </DetailDrawer>
  );
}
