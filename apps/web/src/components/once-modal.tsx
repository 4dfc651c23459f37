import type { ReactNode } from 'react';
import { Modal } from 'antd';

/**
 * A modal showing what the server gives once (a secret, an issued certificate): a click on the
 * mask does not close it, and its content is dropped when it closes.
 */
export function OnceModal({
  open,
  title,
  width,
  footer,
  onClose,
  children,
}: {
  open: boolean;
  title: ReactNode;
  width: number;
  footer: ReactNode;
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
      footer={footer}
    >
      {children}
    </Modal>
  );
}
