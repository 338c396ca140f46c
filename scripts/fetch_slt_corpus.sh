#!/usr/bin/env bash
# Fetches SQLite's public sqllogictest corpus (select1.test to select5.test and the twelve
# evidence files) into a cache directory outside the source tree, and checks every file by
# SHA-256 against the digests below, so that a run is of exactly these files.
#
# Where the files come from: the Maven package net.hydromatic:sql-logic-test:0.3 (a Java
# port of the sqllogictest runner, MIT) ships SQLite's test scripts, which are in the public
# domain, as resources under test/. Maven's own client fetches the package (about 110 MB,
# kept in ~/.m2, or $MAVEN_REPOSITORY, for the next run); this script copies the files out of
# it.
#
#   scripts/fetch_slt_corpus.sh [DIR]     DIR, else $PYTHIA_SLT_CORPUS, else target/slt-corpus
#
# Then: target/release/pythia slt --compare DIR/select1.test ...  (docs/slt.md, "Public corpus")
set -euo pipefail

artifact_group=net.hydromatic
artifact_name=sql-logic-test
artifact_version=0.3

root=$(cd "$(dirname "$0")/.." && pwd)
corpus_dir=${1:-${PYTHIA_SLT_CORPUS:-$root/target/slt-corpus}}

# The files and their SHA-256, as the package holds them (path inside the package).
digests="
e93b83d64d06f78aee0e690455b6c604e86ad9a339f77d927a782cefb6b0e1d5  test/select1.test
a8ecc3d206c4d4b2cd6a154c18999e558ec97168cd7e327a4369e23aaf31be64  test/select2.test
d5c321683bfe903c9be95ebe80a8d23da4d8f4a39193b2087dbc34cb4e137623  test/select3.test
155ff6bb9bbf7c2dcf1e5659bb1688dec5dab58126f8dc66d23dcae6df43f59e  test/select4.test
049a5d0bf90999c56db2d5880ef28febdc88906526f87069cc96af9f84c99869  test/select5.test
83d8958a4f86de196a0756e548f24c71db6edf2679d70393d546d542c84fc2fd  test/evidence/in1.test
2002fcdee665882916dea3de6172ba0ae9b5aae704d661d8f7daa810e1222383  test/evidence/in2.test
4bec99f4e2c725c0887686b4b1e3b2e53da76163beafdd86d418356fe164c0d5  test/evidence/slt_lang_aggfunc.test
f348b256796d4ffd94d47f0a5571797eb6f52b4dc6b56df552a28573d5545361  test/evidence/slt_lang_createtrigger.test
313eda94759b5798e0498b35658900fd1811b347ad3081a378e0a21e78b48113  test/evidence/slt_lang_createview.test
d8c7b2c4b3bc44ae2121bc05506959aac189a5dc45c67b987eb0cceb742a50f7  test/evidence/slt_lang_dropindex.test
4f4ecbc72c6a6d82b5cf54b2905431256ca8a901ff861c82d8d8b6a58ffef04b  test/evidence/slt_lang_droptable.test
62bd45924ee477139d6c2d007c175c503bc43d42b6d2592dba7e6fb26cc9033d  test/evidence/slt_lang_droptrigger.test
b57fde4c9d87bda2aa71c52c0fc45c0484e6fea68aae112dafc213feaecdf087  test/evidence/slt_lang_dropview.test
399d32a15586fc505cf829e5b660ce8813e1bd7f523c8748dad7091a3cefaeec  test/evidence/slt_lang_reindex.test
7bb1542253d0337cd99078f00d2016dc07858cd232fd9ecfcce0b1fa9ea52bd0  test/evidence/slt_lang_replace.test
75c0dd5cc3ea56d33f584b7a8fdaa1fc362bb004deca9b0a519422decf5e2de2  test/evidence/slt_lang_update.test
"

# The files already there and intact: nothing to fetch.
if (cd "$corpus_dir" 2>/dev/null && sed 's#  test/#  #' <<<"$digests" | grep . | sha256sum --check --quiet) >/dev/null 2>&1; then
    echo "slt corpus: $corpus_dir (checked)"
    exit 0
fi

command -v mvn >/dev/null || { echo "fetch_slt_corpus: needs Maven (apt-get install maven)" >&2; exit 1; }
mvn --batch-mode --quiet -Dstyle.color=never dependency:get -Dtransitive=false \
    -Dartifact="$artifact_group:$artifact_name:$artifact_version" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
repository=${MAVEN_REPOSITORY:-$HOME/.m2/repository}
jar="$repository/${artifact_group//.//}/$artifact_name/$artifact_version/$artifact_name-$artifact_version.jar"
[ -f "$jar" ] || { echo "fetch_slt_corpus: $jar is missing after the download" >&2; exit 1; }

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
python3 - "$jar" "$staging" <<'EOF'
import sys, zipfile
jar, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(jar) as archive:
    names = [n for n in archive.namelist() if n.startswith("test/") and n.endswith(".test")
             and (n.count("/") == 1 and n.startswith("test/select") or n.startswith("test/evidence/"))]
    archive.extractall(out, names)
EOF
(cd "$staging" && sha256sum --check --quiet <<<"$(grep . <<<"$digests")") || {
    echo "fetch_slt_corpus: a file of the package does not have the expected SHA-256" >&2
    exit 1
}
mkdir -p "$corpus_dir/evidence"
cp "$staging"/test/select*.test "$corpus_dir/"
cp "$staging"/test/evidence/*.test "$corpus_dir/evidence/"
echo "slt corpus: $corpus_dir ($(grep -c . <<<"$digests") files, checked)"
