// The setup code form: the code goes to the table; once it is right, the setup page opens.

import { enhance } from "/static/js/forms.js";
import { loadMessages } from "/static/js/i18n.js";

await loadMessages();

enhance(document.getElementById("code-form"), { done: () => window.location.reload() });
