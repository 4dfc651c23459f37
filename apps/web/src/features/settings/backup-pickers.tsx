import { Typography, type SelectProps } from 'antd';
import { certDetail, certKeys, listCerts, type CertRow } from '../../api/cert';
import { keyDetail, keyKeys, listKeys, type KeyRow } from '../../api/key';
import { PagedSelect } from '../../components/paged-select';

type Props = Omit<SelectProps<string[]>, 'options' | 'mode'>;

const searchOf = (search: string) => (search.trim() ? { name: search.trim() } : {});

/** The name, and in grey what tells two of one name apart. */
function Named({ name, detail }: { name: string; detail: string }) {
  return (
    <span>
      {name} <Typography.Text type="secondary">{detail}</Typography.Text>
    </span>
  );
}

/** Keys of the current domain, searched by name on the server (value: key ids). */
export function KeyPicker(props: Props) {
  return (
    <PagedSelect<KeyRow>
      mode="multiple"
      allowClear
      queryKey={[...keyKeys.all, 'picker']}
      fetchPage={(page, pageSize, search) => listKeys({ page, page_size: pageSize, ...searchOf(search) })}
      resolve={(ids) => Promise.all(ids.map((id) => keyDetail(id)))}
      toOption={(key) => ({ value: key.id, label: <Named name={key.name} detail={key.algorithm} /> })}
      {...props}
    />
  );
}

/** Certificates of the current domain, searched by name on the server (value: certificate ids). */
export function CertPicker(props: Props) {
  return (
    <PagedSelect<CertRow>
      mode="multiple"
      allowClear
      queryKey={[...certKeys.certs, 'picker']}
      fetchPage={(page, pageSize, search) => listCerts({ page, page_size: pageSize, ...searchOf(search) })}
      resolve={(ids) => Promise.all(ids.map((id) => certDetail(id)))}
      toOption={(cert) => ({ value: cert.id, label: <Named name={cert.name} detail={cert.cn} /> })}
      {...props}
    />
  );
}
