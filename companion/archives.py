"""Tar archives from outside (a backup, a release file) read as plain files only, each header judged before
tarfile reads anything more.

tarfile reads a pax or GNU long-name header's data whole, and follows chained
headers one within another, before a member's name can be looked at (gzip
packs hundreds of MB of such data into a few hundred KB); a link or a device
is one more way out of the folder it is unpacked in. The archives the table
reads hold plain file headers only, so any other header is refused as it is
read, by the reader's own refusal.

>>> import io, tarfile
>>> data = io.BytesIO()
>>> with tarfile.open(fileobj=data, mode="w") as tar:
...     tar.addfile(tarfile.TarInfo("x"), io.BytesIO())
>>> with tarfile.open(fileobj=io.BytesIO(data.getvalue()), tarinfo=plain_headers(ValueError)) as tar:
...     tar.getnames()
['x']
"""

import tarfile
from collections.abc import Callable


def plain_headers(refuse: Callable[[str], Exception], name_ok: Callable[[str], bool] = lambda name: True) -> type:
    """A TarInfo class for tarfile.open(tarinfo=...): a header that is not a plain file's, or whose name
    `name_ok` refuses, raises refuse(its name) before tarfile reads its data."""

    class PlainFileHeader(tarfile.TarInfo):
        def _proc_member(self, tarfile_):
            if self.type not in (tarfile.REGTYPE, tarfile.AREGTYPE) or not name_ok(self.name):
                raise refuse(self.name)
            return super()._proc_member(tarfile_)

    return PlainFileHeader
