import { Modal, message } from 'antd';

/**
 * How the client talks to the user and the page; the app swaps in context-aware versions.
 * Kept apart from the client so that the shell sets it without loading the client itself.
 */
export interface ClientEnvironment {
  showError(text: string): void;
  /** The "identity expired" alert; `onConfirm` runs when its button is pressed. */
  showSessionExpired(title: string, content: string, okText: string, onConfirm: () => void): void;
  reload(): void;
  /** Code 5030: the system is not initialized or not activated. */
  onNotReady(): void;
  /** Code 4003: the password must be changed before going on. */
  onPasswordChangeRequired(): void;
}

const defaultEnvironment: ClientEnvironment = {
  showError: (text) => void message.error(text),
  showSessionExpired: (title, content, okText, onConfirm) => {
    Modal.warning({ title, content, okText, onOk: onConfirm, keyboard: false, closable: false });
  },
  reload: () => window.location.reload(),
  onNotReady: () => undefined,
  onPasswordChangeRequired: () => undefined,
};

let environment: ClientEnvironment = defaultEnvironment;

export function configureClient(overrides: Partial<ClientEnvironment>): void {
  environment = { ...environment, ...overrides };
}

export function clientEnvironment(): ClientEnvironment {
  return environment;
}

export function resetClientEnvironment(): void {
  environment = defaultEnvironment;
}
