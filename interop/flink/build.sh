# build.sh is sourced by run.sh and flipcheck.sh: it picks the Maven profile from FLINK (1.20, the
# default, or 2), builds the harness on first use and again when a source file changes
# (MVN_OFFLINE=1 adds -o), and sets build (the profile's target directory) and stamp (its
# classpath file) and jdk_opts (the JDK 17 options Flink's own config.yaml passes).
flink="${FLINK:-1.20}"
case "$flink" in
  1.20|flink-1.20) profile=flink-1.20 ;;
  2|flink-2) profile=flink-2 ;;
  *) echo "${0##*/}: FLINK must be 1.20 or 2, not $flink" >&2; exit 2 ;;
esac

build="$here/target/$profile"
stamp="$build/classpath.txt"
if [ ! -f "$stamp" ] || [ -n "$(find "$here/src" "$here/pom.xml" -newer "$stamp" -print -quit)" ]; then
  mvn_flags=(-q -B -f "$here/pom.xml" -P "$profile")
  [ "${MVN_OFFLINE:-}" = 1 ] && mvn_flags+=(-o)
  mvn_log="$(mktemp)"
  if ! mvn "${mvn_flags[@]}" package -DskipTests >"$mvn_log" 2>&1; then
    cat "$mvn_log" >&2
    rm -f "$mvn_log"
    echo "${0##*/}: the Maven build of the harness ($profile) failed" >&2
    exit 1
  fi
  rm -f "$mvn_log"
  touch "$stamp"
fi

# JDK 17 options that Flink's own config.yaml passes (env.java.opts.all).
jdk_opts=(
  --add-exports=java.base/sun.net.util=ALL-UNNAMED
  --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED
  --add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED
  --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.text=ALL-UNNAMED
  --add-opens=java.base/java.time=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED
)
