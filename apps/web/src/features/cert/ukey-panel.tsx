import { useState } from 'react';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd';
import { api } from '@ksp/contracts';
import { accessKeys } from '../../api/access';
import { certKeys } from '../../api/cert';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';
import { CertList } from './cert-list';
import { UkeyIssueModal } from './ukey-issue-modal';

/**
 * Certificates › local › UKEY certificates: the users' UKEY certificates (source `ukey`) and,
 * with cert:write, the form that issues them onto a UKEY plugged into this computer.
 */
export function UkeyCertPanel({ keepParams }: { keepParams?: readonly string[] }) {
  const t = useT();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.cert.ukeyIssue);
  const [open, setOpen] = useState(false);
  return (
    <>
      <CertList
        source="ukey"
        keepParams={keepParams}
        toolbar={
          canWrite && (
            <Button
              type="primary"
              icon={<SafetyCertificateOutlined />}
              onClick={() => setOpen(true)}
              data-testid="ukey-issue-open"
            >
              {t('cert:ukey.issue')}
            </Button>
          )
        }
      />
      {/* Mounted only while open: closing drops the form, its PIN and the step answers. */}
      {open && (
        <UkeyIssueModal
          onClose={() => setOpen(false)}
          onIssued={() =>
            Promise.all([
              queryClient.invalidateQueries({ queryKey: certKeys.all }),
              queryClient.invalidateQueries({ queryKey: accessKeys.users }),
            ])
          }
        />
      )}
    </>
  );
}
