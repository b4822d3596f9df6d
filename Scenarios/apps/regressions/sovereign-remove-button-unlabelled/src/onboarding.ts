import { addInstance, listInstances, removeInstance, setActiveUrl } from './store';
import { normalizeInstanceUrl, parseInstanceResponse } from './validate';

export interface OnboardingOptions {
  prefillUrl?: string;
  pendingPath?: string;
}

export async function checkInstance(origin: string) {
  try {
    const response = await fetch(`${origin}/api/instance`, { signal: AbortSignal.timeout(5000) });
    return parseInstanceResponse(response.status, await response.json());
  } catch {
    return null;
  }
}

// assign, never replace: the local page stays in history, so back returns to the manager.
export function loadInstance(url: string): void {
  window.location.assign(url);
}

export async function renderOnboarding(root: HTMLElement, options: OnboardingOptions = {}): Promise<void> {
  const instances = await listInstances();
  root.innerHTML = '';
  const form = document.createElement('form');
  const input = document.createElement('input');
  input.id = 'instance-url';
  input.value = options.prefillUrl ?? '';
  form.append(input);
  for (const instance of instances) {
    const open = document.createElement('button');
    open.className = 'instance-open';
    open.textContent = instance.label;
    open.onclick = async () => {
      await setActiveUrl(instance.url);
      loadInstance(instance.url);
    };
    const remove = document.createElement('button');
    remove.className = 'instance-remove';
    remove.setAttribute('aria-label', `Remove ${instance.label}`);
    remove.onclick = async () => {
      await removeInstance(instance.url);
      await renderOnboarding(root);
    };
    root.append(open, remove);
  }
  form.onsubmit = async (event) => {
    event.preventDefault();
    const origin = normalizeInstanceUrl(input.value);
    const info = origin ? await checkInstance(origin) : null;
    if (!origin || !info) return;
    await addInstance({ url: origin, label: info.instanceName, addedAt: Date.now() });
    loadInstance(origin + (options.pendingPath ?? ''));
  };
  root.append(form);
  root.removeAttribute('aria-busy');
}
