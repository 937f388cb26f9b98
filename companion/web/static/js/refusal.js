// A refusal written away from its field, led by the field's path ("nest.points[0]: …"), in the page's
// language: never the table's English sentence (data.error is for scripts).

import { errorText } from "./api.js";
import { t } from "./i18n.js";

export const fieldErrorText = (data) =>
  (data?.field ? t("errors.at", { field: data.field, message: errorText(data) }) : errorText(data));
