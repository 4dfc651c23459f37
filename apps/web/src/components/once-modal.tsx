import type { ReactNode } from 'react';
import { Button, Modal } from 'antd';

/**
 * A modal showing what the server gives once (a secret, an issued certificate): a click on the
 * mask does not close it, and its content is dropped when it closes. Its footer is `footer`, or
 * else the one primary button `done` that closes it.
 */
export function OnceModal({
  open,
  title,
  width,
  footer,
  done,
  onClose,
  children,
}: {
  open: boolean;
  title: ReactNode;
  width: number;
  footer?: ReactNode;
  done?: { label: ReactNode; testId: string };
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      width={width}
      footer={
        footer ??
        (done && (
          <Button type="primary" onClick={onClose} data-testid={done.testId}>
            {done.label}
          </Button>
        ))
      }
    >
      {children}
    </Modal>
  );
}
